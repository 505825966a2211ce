"""The bulk import's pipeline (embedding beside the writes) against the real Neo4j and
embedder: what it writes, and what it reports when a batch fails."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from kg_brain.base.errors import StoreUnavailable
from kg_brain.root.app import Brain
from kg_brain.shapes.models import NoteView
from kg_brain.store import admin, notes
from kg_brain.store.db import Database


def _count(db: Database, project: str) -> int:
    return sum(int(r["notes"]) for r in admin.note_counts(db) if r["project"] == project)


def _records(project: str, count: int) -> list[dict[str, Any]]:
    services = ["billing", "ledger", "search", "upload", "mailer", "scheduler", "gateway"]
    return [{"content": f"The {services[i % 7]} worker {i} retries failed calls {i % 5 + 2} "
                        f"times before it pages on-call (runbook step {i}).", "project": project}
            for i in range(count)]


def _written(note: NoteView) -> str:
    """What the import wrote, the project's name left out (the context and tags name it)."""
    return repr((note.content, note.title, note.context, note.keywords, note.tags,
                 note.note_kind, note.memory_type, sorted(e.key for e in note.entities))
                ).replace(note.project, "<project>")


def test_the_pipelined_import_writes_what_one_batch_does(brain: Brain, project: str) -> None:
    """Small batches go through several embedding calls overlapping the writes; one batch of
    everything overlaps nothing. Both write the same notes, in record order."""
    other = f"{project}-whole"
    piped = brain.importer.add_many(_records(project, 150), batch_size=8)
    whole = brain.importer.add_many(_records(other, 150), batch_size=150)
    assert len(set(piped)) == len(piped) == 150 == _count(brain.db, project)
    a, b = brain.reader.get(piped), brain.reader.get(whole)
    assert [_written(n) for n in a] == [_written(n) for n in b]
    assert [n.content for n in a] == [r["content"] for r in _records(project, 150)]
    for note in a[::37]:  # each found by its own text: its vector is its own
        [near] = notes.nearest_notes(brain.db, vector=brain.embedder.encode(note.content),
                                     project=project, memory_types=["permanent"], fetch=200, k=1,
                                     exclude=[])
        assert near["zk_id"] == note.zk_id


def test_a_failed_batch_stops_the_import_and_names_what_was_written(
    brain: Brain, project: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    insert, calls = notes.insert_notes, []

    def third_fails(tx: Any, rows: list[dict[str, Any]], now: Any) -> list[str]:
        calls.append(len(rows))
        if len(calls) == 3:
            raise StoreUnavailable(f"store went away ({uuid.uuid4().hex[:6]})")
        return insert(tx, rows, now)

    monkeypatch.setattr("kg_brain.store.notes.insert_notes", third_fails)
    seen: list[tuple[str, int]] = []
    with pytest.raises(StoreUnavailable,
                       match=r"writing records 41-60 failed: store went away .*records 1-40 "
                             r"were imported \(40 notes\), none after them"):
        brain.importer.add_many(_records(project, 100), batch_size=20,
                                progress=lambda phase, n: seen.append((phase, n)))
    assert calls == [20, 20, 20]
    assert _count(brain.db, project) == 40
    assert [n for phase, n in seen if phase == "imported"] == [20, 20]
