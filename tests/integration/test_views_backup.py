"""Backup and restore: JSON Lines round trips compared node by node and link by link."""

from __future__ import annotations

import argparse
import io
import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from kg_brain.base.errors import InvalidInput
from kg_brain.enrichment.embed import SentenceTransformerEmbedder
from kg_brain.store.db import Database
from kg_brain.surfaces.cli import data as cli
from kg_brain.views.backup import export_records, read_file, restore_records, write_jsonl
from tests.support.brains import delete_project, make_brain, settings_for, small_graph

Records = list[dict[str, Any]]


def _graph(records: Records, ids: dict[str, str], project: str) -> dict[str, Any]:
    """Notes, links and revisions keyed for comparison, ids and project renamed back."""
    def rename(props: dict[str, Any]) -> dict[str, Any]:
        out = dict(props)
        if "zk_id" in out:
            out["zk_id"] = ids.get(out["zk_id"], out["zk_id"])
        if "project" in out:
            out["project"] = project
        return out

    notes, links, revisions = {}, {}, {}
    for r in records:
        if r["kind"] == "note":
            zk_id = ids.get(r["zk_id"], r["zk_id"])
            notes[zk_id] = {**r, "zk_id": None, "props": rename(r["props"])}
        elif r["kind"] == "link":
            key = (ids.get(r["src"], r["src"]), r["type"], ids.get(r["dst"], r["dst"]))
            links[key] = (r["props"], r["temporal"])
        elif r["kind"] == "revision":
            key = (ids.get(r["note"], r["note"]), r["props"]["version"])
            revisions[key] = (rename(r["props"]), r["temporal"])
    return {"notes": notes, "links": links, "revisions": revisions}


def _assert_same(a: dict[str, Any], b: dict[str, Any]) -> None:
    assert a["notes"].keys() == b["notes"].keys()
    for zk_id, note in a["notes"].items():
        assert b["notes"][zk_id] == note, f"note {zk_id} differs"
    assert a["links"] == b["links"]
    assert a["revisions"] == b["revisions"]


@pytest.fixture
def populated(db: Database, embedder: SentenceTransformerEmbedder, project: str) -> Records:
    small_graph(make_brain(db, embedder), project)
    return list(export_records(db, [project]))


def test_export_holds_every_property_link_and_revision(populated: Records) -> None:
    kinds = [r["kind"] for r in populated]
    assert kinds[0] == "header" and kinds[-1] == "footer"
    notes = [r for r in populated if r["kind"] == "note"]
    assert len(notes) == 4 and all(len(n["embedding"]) == 384 for n in notes)
    assert all(n["temporal"]["created"][0] == "ZONED DATETIME" for n in notes)
    assert {"FIXES"} <= {r["type"] for r in populated if r["kind"] == "link"}
    assert any(r["kind"] == "revision" for r in populated)


def test_copy_into_another_project_is_identical_up_to_ids(db: Database, populated: Records,
                                                          project: str) -> None:
    copy = f"{project}-copy"
    counts = restore_records(db, populated, as_project=copy)
    again = list(export_records(db, [copy]))
    assert set(counts.id_map) == {r["zk_id"] for r in populated if r["kind"] == "note"}
    assert not set(counts.id_map) & set(counts.id_map.values())
    back = {new: old for old, new in counts.id_map.items()}
    _assert_same(_graph(populated, {}, project), _graph(again, back, project))


def test_restore_in_place_after_loss_gives_the_same_graph(db: Database, populated: Records,
                                                          project: str, tmp_path: Path) -> None:
    path = tmp_path / "backup.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        write_jsonl(populated, fh)
    delete_project(db, project)
    assert list(export_records(db, [project]))[-1]["notes"] == 0
    is_backup, records = read_file(path)
    assert is_backup
    counts = restore_records(db, records)
    assert (counts.notes, counts.skipped) == (4, 0)
    again = list(export_records(db, [project]))
    _assert_same(_graph(populated, {}, project), _graph(again, {}, project))
    restore_records(db, populated)  # idempotent: restoring twice changes nothing
    _assert_same(_graph(populated, {}, project), _graph(list(export_records(db, [project])), {},
                                                        project))


def test_restore_refuses_a_file_without_header(db: Database) -> None:
    with pytest.raises(InvalidInput):
        restore_records(db, [{"kind": "note", "zk_id": "ZK-00000000", "props": {}}])


def test_import_command_routes_plain_records_through_bulk_add(db: Database, project: str,
                                                              tmp_path: Path) -> None:
    path = tmp_path / "notes.json"
    path.write_text(json.dumps([
        {"content": "Use uv pip compile to pin the lock file for CI."},
        {"content": "Ruff replaces flake8 and isort in this repository.", "note_kind": "decision",
         "project": project},
    ]), encoding="utf-8")
    args = argparse.Namespace(path=str(path), as_project=None, project=project)
    assert cli.cmd_import(args, settings_for(db)) == 0
    notes = [r for r in export_records(db, [project]) if r["kind"] == "note"]
    assert sorted(n["props"]["note_kind"] for n in notes) == ["decision", "general"]


def test_export_command_writes_jsonl_that_import_restores(db: Database, populated: Records,
                                                          project: str, tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    settings = settings_for(db)
    assert cli.cmd_export(argparse.Namespace(path=str(path), project=[project]), settings) == 0
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(populated)
    copy = f"copy-{uuid.uuid4().hex[:8]}"
    args = argparse.Namespace(path=str(path), as_project=copy, project=None)
    assert cli.cmd_import(args, settings) == 0
    copied = [r for r in export_records(db, [copy]) if r["kind"] == "note"]
    assert len(copied) == 4


def test_write_jsonl_counts_from_footer() -> None:
    buffer = io.StringIO()
    counts = write_jsonl([{"kind": "header"}, {"kind": "footer", "notes": 2, "links": 1,
                                                "revisions": 0}], buffer)
    assert (counts.notes, counts.links, counts.revisions) == (2, 1, 0)
    assert len(buffer.getvalue().splitlines()) == 2
