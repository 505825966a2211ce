"""The numpy mirror's read of stored notes (bench/ranking.py) on the real server."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bench.ranking import read_notes
from kg_brain.enrichment.embed import SentenceTransformerEmbedder
from kg_brain.store.db import Database
from tests.support.brains import make_brain


def test_notes_written_within_one_second_keep_their_order(
        db: Database, embedder: SentenceTransformerEmbedder, project: str) -> None:
    """search_memory compares the times notes state their values in full (the current value
    first), so the mirror keeps a second's fraction: two turns of a conversation written 0.3 s
    apart are not written at once."""
    now = [datetime(2026, 5, 4, 9, 0, 0, 500_000, tzinfo=UTC)]
    brain = make_brain(db, embedder, clock=lambda: now[0])
    first = brain.writer.add("The nightly export job writes parquet files to the archive "
                             "bucket.", project).note.zk_id
    now[0] += timedelta(milliseconds=300)
    second = brain.writer.add("Mobile release builds are signed on the CI runner, never on "
                              "laptops.", project).note.zk_id
    notes = read_notes(db, project)
    at = {z: i for i, z in enumerate(notes.ids)}
    assert notes.stated[at[second]] - notes.stated[at[first]] == pytest.approx(0.3, abs=1e-3)
    assert notes.created[at[second]] - notes.created[at[first]] == pytest.approx(0.3, abs=1e-3)
