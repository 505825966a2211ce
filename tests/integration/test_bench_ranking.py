"""The numpy mirror's read of stored notes (bench/ranking.py) on the real server."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from bench.ranking import best_sentences, read_notes
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


def test_the_mirror_reads_a_notes_sentences_once_its_job_ran(
        db: Database, embedder: SentenceTransformerEmbedder, project: str) -> None:
    """The mirror re-scores by the sentence vectors search_memory reads: none while the note's
    sentences job waits (the note keeps its cosine), then one per sentence of its text."""
    brain = make_brain(db, embedder)
    title, content = ("Release routine", "The desktop app ships every second Tuesday. The "
                      "installer is signed on the build machine in the basement.")
    zk_id = brain.writer.add(f"{title}. {content}", project).note.zk_id
    asked = np.asarray(embedder.encode("Which machine signs the installer?"), dtype=np.float64)
    asked /= np.linalg.norm(asked)
    waiting = read_notes(db, project)
    assert waiting.sentence_of.size == 0 and best_sentences(waiting, asked) is None
    assert brain.sentence_jobs.process(project=project) == 1
    notes = read_notes(db, project)
    assert notes.ids == [zk_id] and notes.sentence_of.size >= 2
    assert set(notes.sentence_of.tolist()) == {0}
    # at least the signing sentence's cosine (the int8 runtime: within 0.02 of it)
    signing = np.asarray(embedder.encode(content.split(". ")[1]), dtype=np.float64)
    best = best_sentences(notes, asked)
    assert best is not None
    assert best[0] >= float(np.dot(signing, asked) / np.linalg.norm(signing)) - 0.02
    assert best[0] > float(notes.vectors[0] @ asked)  # one sentence answers better than all
