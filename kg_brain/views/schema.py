"""Schema health and the conformance migrations from the seed, run in this order:

1. memory-schema: a note kind stored as memory_type (memory_type='decision') becomes
   memory_type='permanent' with that note_kind (when the note has no meaningful kind yet);
2. note-kind: unknown note_kind values become their enum synonym, else 'general';
3. memory-type: unknown memory_type values become their enum synonym, else 'permanent'.

Every migration is a dry run unless applied; before applying, the affected notes (all their
properties, embedding included) are written to `backups/<name>-pre-migration-<timestamp>.json`,
which `kg-brain import` restores. The graph upgrade (`kg-brain migrate graph`,
kg_brain/views/upgrade.py) writes its backup the same way.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from kg_brain.base.vocab import EMBEDDING_DIM, MemoryType, NoteKind
from kg_brain.shapes.models import iso
from kg_brain.store import views
from kg_brain.store.db import Database
from kg_brain.views.backup import export_records

KINDS = {k.value for k in NoteKind}
TYPES = {m.value for m in MemoryType}
KIND_SYNONYMS = {
    "bug": "mistake", "error": "mistake", "failure": "mistake", "pitfall": "mistake",
    "gotcha": "mistake", "solution": "fix", "bugfix": "fix", "workaround": "fix",
    "resolution": "fix", "best_practice": "pattern", "convention": "pattern", "howto": "pattern",
    "recipe": "pattern", "adr": "decision", "choice": "decision", "investigation": "research",
    "finding": "research", "learning": "research", "todo": "open_thread",
    "open_question": "open_thread", "thread": "open_thread", "summary": "session_summary",
    "session": "session_summary", "context": "project_context", "project": "project_context",
}
TYPE_SYNONYMS = {"archive": "archived", "inbox": "fleeting", "draft": "fleeting",
                 "temporary": "fleeting", "scratch": "fleeting", "long_term": "permanent"}
BACKUP_PREFIX = {"memory-schema": "memory", "note-kind": "notekind", "memory-type": "memorytype",
                 "graph": "graph"}


def _norm(value: Any) -> str:
    return "_".join(str(value).strip().lower().replace("-", " ").split()) if value else ""


@dataclass(frozen=True)
class Change:
    zk_id: str
    project: str | None
    old: dict[str, Any]
    new: dict[str, str]


def _memory_schema(row: dict[str, Any]) -> dict[str, str] | None:
    kind = _norm(row["memory_type"])
    if kind not in KINDS:
        return None
    fields = {"memory_type": MemoryType.PERMANENT.value}
    if row["note_kind"] in (None, NoteKind.GENERAL.value) or row["note_kind"] not in KINDS:
        fields["note_kind"] = kind
    return fields


def _note_kind(row: dict[str, Any]) -> dict[str, str] | None:
    if row["note_kind"] in KINDS:
        return None
    value = _norm(row["note_kind"])
    value = value if value in KINDS else KIND_SYNONYMS.get(value, NoteKind.GENERAL.value)
    return {"note_kind": value}


def _memory_type(row: dict[str, Any]) -> dict[str, str] | None:
    if row["memory_type"] in TYPES:
        return None
    value = _norm(row["memory_type"])
    value = value if value in TYPES else TYPE_SYNONYMS.get(value, MemoryType.PERMANENT.value)
    return {"memory_type": value}


MIGRATIONS: dict[str, Callable[[dict[str, Any]], dict[str, str] | None]] = {
    "memory-schema": _memory_schema, "note-kind": _note_kind, "memory-type": _memory_type,
}


@dataclass
class MigrationReport:
    name: str
    applied: bool
    changes: list[Change]
    changed: int = 0
    backup: Path | None = None
    skipped: list[str] = field(default_factory=list)  # changed by someone else meanwhile


def plan(db: Database, name: str, project: str | None = None) -> list[Change]:
    rule = MIGRATIONS[name]
    rows = views.nonconforming_notes(db, project=project, memory_types=sorted(TYPES),
                                     note_kinds=sorted(KINDS))
    changes = []
    for row in rows:
        fields = rule(row)
        if fields and row["zk_id"]:
            old = {k: row[k] for k in ("memory_type", "note_kind")}
            changes.append(Change(row["zk_id"], row["project"], old, fields))
    return changes


def migrate(db: Database, name: str, now: datetime, apply: bool = False,
            project: str | None = None, backup_dir: Path = Path("backups")) -> MigrationReport:
    changes = plan(db, name, project)
    report = MigrationReport(name, apply, changes)
    if not apply or not changes:
        return report
    report.backup = write_backup(db, name, [c.zk_id for c in changes], now, backup_dir)
    rows = [{"zk_id": c.zk_id, "fields": c.new,
             "old_memory_type": _text(c.old["memory_type"]),
             "old_note_kind": _text(c.old["note_kind"])} for c in changes]
    done = {r["zk_id"] for r in views.migrate_note_fields(db, rows=rows)}
    report.changed = len(done)
    report.skipped = [c.zk_id for c in changes if c.zk_id not in done]
    return report


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def write_backup(db: Database, name: str, zk_ids: list[str], now: datetime,
                 backup_dir: Path, exact_links: bool = False) -> Path:
    """The affected notes as a restorable backup document, streamed record by record (a large
    graph's backup is never held whole); written before anything changes. `exact_links`:
    restoring it also drops links between its notes that it does not list (for a migration
    that re-types links)."""
    backup_dir.mkdir(parents=True, exist_ok=True)
    stamp = now.strftime("%Y%m%dT%H%M%S%fZ")
    path = backup_dir / f"{BACKUP_PREFIX[name]}-pre-migration-{stamp}.json"
    head = json.dumps({"format": "kg-brain-backup", "migration": name, "created": iso(now)})
    tmp = path.with_suffix(".json.tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        fh.write(head[:-1] + ', "records": [')
        for number, record in enumerate(export_records(db, zk_ids=zk_ids, now=now)):
            if record["kind"] == "header":
                record["exact_links"] = exact_links
            fh.write(("," if number else "") + "\n" + json.dumps(record, ensure_ascii=False))
        fh.write("\n]}\n")
    tmp.replace(path)
    return path


@dataclass(frozen=True)
class Violation:
    zk_id: str
    project: str | None
    problems: list[str]


def check_schema(db: Database, project: str | None = None, limit: int = 1000) -> list[Violation]:
    rows = views.schema_violations(db, project=project, memory_types=sorted(TYPES),
                                   note_kinds=sorted(KINDS), dim=EMBEDDING_DIM, limit=limit)
    return [Violation(r["zk_id"], r["project"], list(r["problems"])) for r in rows]
