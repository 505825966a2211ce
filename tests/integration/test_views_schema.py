"""Schema health and the conformance migrations, on bad notes written straight to the graph."""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kg_brain.enrichment.embed import SentenceTransformerEmbedder
from kg_brain.store.db import Database
from kg_brain.store.notes import create_notes, new_zk_id, note_for_update
from kg_brain.store.views import memory_md_notes
from kg_brain.surfaces.cli import data as cli
from kg_brain.views.backup import read_file
from kg_brain.views.schema import check_schema, migrate
from tests.support.brains import settings_for

NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def _bad_notes(db: Database, project: str, vector: list[float]) -> dict[str, str]:
    """A test-only parameter map per note, bypassing validation as old or foreign data would."""
    specs: dict[str, dict[str, Any]] = {
        "kind_as_type": {"memory_type": "decision", "note_kind": "general"},
        "synonym_kind": {"memory_type": "permanent", "note_kind": "Bug"},
        "odd_kind": {"memory_type": "permanent", "note_kind": "whatever"},
        "odd_type": {"memory_type": "Long-Term-ish", "note_kind": "fix"},
        "no_content": {"memory_type": "permanent", "note_kind": "general", "content": None},
        "good": {"memory_type": "permanent", "note_kind": "pattern"},
    }
    ids = {name: new_zk_id() for name in specs}
    rows = [{"zk_id": ids[name], "title": name, "content": f"{name} note", "project": project,
             "created": NOW, "updated": NOW, "access_count": 0, "pinned": False,
             "keywords": [], "tags": [], "context": "", "embedding": vector,
             **{k: v for k, v in spec.items() if v is not None}}
            for name, spec in specs.items()]
    create_notes(db, rows=rows)  # a note is written with its content: it is removed after
    db.driver.execute_query("UNWIND $ids AS id MATCH (n:Note {zk_id: id}) REMOVE n.content",
                            ids=[ids[n] for n, spec in specs.items() if "content" in spec],
                            database_=db.conn.database)
    return ids


def test_check_schema_names_each_violating_note(db: Database,
                                                embedder: SentenceTransformerEmbedder,
                                                project: str, capsys: Any) -> None:
    ids = _bad_notes(db, project, embedder.encode("schema"))
    found = {v.zk_id: v.problems for v in check_schema(db, project)}
    assert found == {
        ids["kind_as_type"]: ["unknown memory_type decision"],
        ids["synonym_kind"]: ["unknown note_kind Bug"],
        ids["odd_kind"]: ["unknown note_kind whatever"],
        ids["odd_type"]: ["unknown memory_type Long-Term-ish"],
        ids["no_content"]: ["missing content"],
    }
    args = argparse.Namespace(project=project)
    assert cli.cmd_check_schema(args, settings_for(db)) == 1
    assert ids["odd_kind"] in capsys.readouterr().out


def test_migrations_dry_run_then_apply_in_order_with_backups(
        db: Database, embedder: SentenceTransformerEmbedder, project: str,
        tmp_path: Path) -> None:
    ids = _bad_notes(db, project, embedder.encode("schema"))
    dry = migrate(db, "memory-schema", NOW, project=project, backup_dir=tmp_path)
    assert [c.zk_id for c in dry.changes] == [ids["kind_as_type"]] and dry.changed == 0
    assert not list(tmp_path.iterdir())
    assert len(check_schema(db, project)) == 5  # nothing changed

    applied = migrate(db, "memory-schema", NOW, apply=True, project=project, backup_dir=tmp_path)
    assert applied.changed == 1 and applied.backup is not None
    assert applied.backup.name == "memory-pre-migration-20260102T030405000000Z.json"
    is_backup, records = read_file(applied.backup)
    notes = [r for r in records if r["kind"] == "note"]
    assert is_backup and notes[0]["props"]["memory_type"] == "decision"
    assert len(notes[0]["embedding"]) == 384

    kinds = migrate(db, "note-kind", NOW, apply=True, project=project, backup_dir=tmp_path)
    assert {c.zk_id: c.new for c in kinds.changes} == {
        ids["synonym_kind"]: {"note_kind": "mistake"}, ids["odd_kind"]: {"note_kind": "general"}}
    types = migrate(db, "memory-type", NOW, apply=True, project=project, backup_dir=tmp_path)
    assert {c.zk_id: c.new for c in types.changes} == {
        ids["odd_type"]: {"memory_type": "permanent"}}
    assert [v.zk_id for v in check_schema(db, project)] == [ids["no_content"]]
    rows = [note_for_update(db, zk_id=ids["kind_as_type"])]
    assert (rows[0]["memory_type"], rows[0]["note_kind"]) == ("permanent", "decision")
    assert len(list(tmp_path.glob("*-pre-migration-*.json"))) == 3


def test_migrate_command_is_a_dry_run_by_default(db: Database,
                                                  embedder: SentenceTransformerEmbedder,
                                                  project: str, tmp_path: Path,
                                                  capsys: Any) -> None:
    ids = _bad_notes(db, project, embedder.encode("schema"))
    args = argparse.Namespace(migration="note-kind", apply=False, project=project,
                              backup_dir=str(tmp_path))
    assert cli.cmd_migrate(args, settings_for(db)) == 0
    out = capsys.readouterr().out
    assert ids["synonym_kind"] in out and "dry run: 2 note(s)" in out
    assert json.loads(json.dumps(check_schema(db, project)[0].problems))


def test_seed_command_runs_the_full_add_pipeline(db: Database, project: str,
                                                 tmp_path: Path) -> None:
    path = tmp_path / "seeds.json"
    path.write_text(json.dumps([
        {"content": "OpenCode MCP config: type remote silently fails; use type local with "
                    "npx mcp-remote <url>.", "project": project, "memory_type": "permanent"},
        {"content": "The resume screener is biased toward the IT category; use "
                    "class_weight balanced.", "project": project, "note_kind": "mistake"},
    ]), encoding="utf-8")
    assert cli.cmd_seed(argparse.Namespace(path=str(path)), settings_for(db)) == 0
    notes = {r["note_kind"]: r for r in memory_md_notes(db, project=project)}
    assert set(notes) == {"general", "mistake"} and all(n["inbound"] >= 0 for n in notes.values())
