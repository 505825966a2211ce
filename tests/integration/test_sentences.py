"""A note's sentences on the real server: written by the note's queued job (add_memory's and
the import's), replaced with its text, gone with it, and search_memory's vector channel and
relevance floor re-scored by them."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest

from kg_brain.domain import search as search_module
from kg_brain.domain.memory import sentences as sentence_jobs
from kg_brain.domain.memory.evolution import CLAIM_FOR
from kg_brain.domain.memory.text import sentences
from kg_brain.domain.search import Search
from kg_brain.enrichment.embed import Embedder
from kg_brain.root.app import Brain
from kg_brain.store import jobs
from kg_brain.store.db import Database
from kg_brain.store.share import IndexFetch
from kg_brain.store.upgrade import SentenceSource
from kg_brain.views.backup import export_records, restore_records
from kg_brain.views.sentences import backfill_sentences
from tests.support.brains import make_brain

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
# One sentence of RELEASE answers QUESTION; the whole note, mostly about other things, is
# further from it than WIZARD, which answers nothing.
RELEASE = ("Release routine of the desktop app",
           "The desktop app ships every second Tuesday. Translators get the strings a week "
           "earlier. The installer is signed on the build machine in the basement. Marketing "
           "writes the changelog. QA runs the smoke suite on three operating systems.")
WIZARD = ("Setup wizard", "The setup wizard asks for a licence key and a folder.")
QUESTION = "Which machine puts the code signature on the installer?"


@pytest.fixture
def brain(db: Database, embedder: Embedder) -> Brain:
    return make_brain(db, embedder, clock=lambda: NOW)


def record(title: str, content: str, project: str) -> dict[str, object]:
    return {"content": content, "title": title, "context": "", "keywords": [],
            "project": project}


def stored(db: Database, zk_id: str) -> list[list[float]]:
    """The sentence vectors linked to the node of `zk_id`, note or tombstone."""
    rows = db.read_tx(lambda tx: tx._tx.run(
        "MATCH (p:Sentence)-[:SENTENCE_OF]->({zk_id: $id}) RETURN p.embedding AS v",
        id=zk_id).data())
    return [r["v"] for r in rows]


def same_vectors(got: list[list[float]], texts: list[str], embedder: Embedder) -> bool:
    """One stored vector per text, each text's nearest (the int8 runtime's vectors of one text
    differ a little between batches: cosine above 0.98)."""
    if len(got) != len(texts):
        return False
    cos = np.array(got) @ np.array(embedder.encode_many(texts)).T
    return bool((cos.max(axis=0) > 0.98).all())


def cosine(db: Database, zk_id: str, vector: list[float]) -> float:
    """The whole note's cosine to `vector`, in [-1, 1]."""
    [row] = db.read_tx(lambda tx: tx._tx.run(
        "MATCH (n:Note {zk_id: $id}) RETURN n.embedding AS v", id=zk_id).data())
    return float(np.dot(row["v"], vector))


def vector_only(brain: Brain, monkeypatch: pytest.MonkeyPatch, floor: float) -> Search:
    """search_memory by its vector channel alone (no lexical weight nor lexical evidence, no
    current value first), the relevance floor `floor` for every query."""
    monkeypatch.setattr(search_module, "OWN_IDF_MAX", 0)  # the floor: Tuning.floor
    monkeypatch.setattr(search_module, "RARE_WORDS", 99)
    counted = replace(brain.deps, index_fetch=IndexFetch(brain.db))  # the notes just written
    search = Search(counted, replace(brain.search.tuning, w_lex=0.0, w_exact=0.0, floor=floor,
                                     lex_floor=math.inf, same_n=0))
    search.word_floor = (floor, 0.0, 0.0)
    return search


def queued(db: Database, project: str) -> list[str]:
    """The keys of the project's sentences jobs still queued."""
    rows = db.read_tx(lambda tx: tx._tx.run(
        "MATCH (j:Job {project: $project, kind: 'sentences'}) RETURN j.key AS key",
        project=project).data())
    return [r["key"] for r in rows]


@pytest.mark.parametrize("path", ["import", "add_memory"])
def test_a_note_whose_one_sentence_answers_ranks_above_a_closer_whole_note(
        brain: Brain, project: str, monkeypatch: pytest.MonkeyPatch, path: str) -> None:
    """The vector channel alone (no lexical weight, no floor): the whole notes' cosines put
    WIZARD first; RELEASE's best sentence lifts it above, once the notes' sentences jobs ran."""
    if path == "import":
        release, wizard = brain.importer.add_many(
            [record(*RELEASE, project), record(*WIZARD, project)])
    else:
        release, wizard = (brain.writer.add(f"{title}. {content}", project).note.zk_id
                           for title, content in (RELEASE, WIZARD))
    search = vector_only(brain, monkeypatch, floor=-1.0)
    before = search.search_memory(QUESTION, project, top_k=2, stamp=False)
    assert [h.zk_id for h in before] == [wizard, release]  # no sentences yet: the cosine
    assert brain.sentence_jobs.process(project=project) == 2
    hits = search.search_memory(QUESTION, project, top_k=2, stamp=False)
    assert [h.zk_id for h in hits] == [release, wizard]
    asked = brain.deps.embedder.encode(QUESTION)
    assert cosine(brain.db, release, asked) < cosine(brain.db, wizard, asked)


def test_the_relevance_floor_reads_the_best_sentence_once_the_queued_job_ran(
        brain: Brain, db: Database, embedder: Embedder, project: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An imported note waits for its sentences in the queue, answered by its whole cosine: below
    the floor, nothing. Once its job ran, the floor reads its score with its best sentence
    (SENTENCE_WHOLE of the cosine), above the floor: it answers, with that score as relevance."""
    [release] = brain.importer.add_many([record(*RELEASE, project)])
    assert stored(db, release) == [] and queued(db, project) == [f"sentences:{release}"]
    asked = embedder.encode(QUESTION)
    whole = cosine(db, release, asked)
    best = max(float(np.dot(v, asked)) for v in embedder.encode_many(sentences(*RELEASE)))
    mixed = search_module.SENTENCE_WHOLE * whole + (1 - search_module.SENTENCE_WHOLE) * best
    assert mixed - whole > 0.1  # the floor between them, far from the int8 runtime's noise
    search = vector_only(brain, monkeypatch, floor=(whole + mixed) / 2)
    assert search.search_memory(QUESTION, project, stamp=False) == []
    assert brain.sentence_jobs.process(project=project) == 1
    assert queued(db, project) == []
    [hit] = search.search_memory(QUESTION, project, stamp=False)
    assert hit.zk_id == release and hit.relevance == pytest.approx(mixed, abs=0.02)


def test_writing_rewriting_and_forgetting_a_note_keep_its_sentences(
        brain: Brain, db: Database, embedder: Embedder, project: str) -> None:
    [release] = brain.importer.add_many([record(*RELEASE, project)])
    assert brain.sentence_jobs.process(project=project) == 1
    assert same_vectors(stored(db, release), sentences(*RELEASE), embedder)
    assert len(sentences(*RELEASE)) == 6  # the title (the content lacks it) and five sentences
    new = "Releases ship on Mondays now. The installer is signed in CI."
    updated = brain.writer.update(release, new).note
    assert same_vectors(stored(db, release), sentences(updated.title, new), embedder)
    brain.curation.forget([release], "moved to the wiki")
    assert stored(db, release) == []
    brain.curation.restore_forgotten([release])
    assert same_vectors(stored(db, release), sentences(updated.title, new), embedder)
    brain.curation.forget([release], "gone", hard=True)
    assert stored(db, release) == []
    added = brain.writer.add(WIZARD[1], project).note  # add_memory's path: its job writes them
    assert stored(db, added.zk_id) == [] and queued(db, project) == [f"sentences:{added.zk_id}"]
    assert brain.sentence_jobs.process(project=project) == 1
    assert same_vectors(stored(db, added.zk_id), sentences(added.title, WIZARD[1]), embedder)
    assert queued(db, project) == []  # nothing kept of a job that ran
    assert brain.sentence_jobs.process(project=project) == 0


def test_a_sentences_job_batches_its_notes_in_one_encode_call(
        brain: Brain, db: Database, embedder: Embedder, project: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    added = [brain.writer.add(text, project).note for text in (RELEASE[1], WIZARD[1])]
    calls: list[int] = []
    encode_many = embedder.encode_many

    def counted(texts: Sequence[str]) -> list[list[float]]:
        calls.append(len(texts))
        return encode_many(texts)

    monkeypatch.setattr(embedder, "encode_many", counted)
    assert brain.sentence_jobs.process(project=project) == 2
    parts = [sentences(n.title, n.content) for n in added]
    assert calls == [sum(map(len, parts))]
    for note, texts in zip(added, parts, strict=True):
        assert same_vectors(stored(db, note.zk_id), texts, embedder)


def test_a_note_rewritten_while_its_job_ran_keeps_the_new_texts_sentences(
        brain: Brain, db: Database, embedder: Embedder, project: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The job read the first text and embedded its sentences; an update lands before its
    write: the update's sentences stay, the stale ones are not written."""
    note = brain.writer.add(RELEASE[1], project).note
    new = "Releases ship on Mondays now. The installer is signed in CI."
    embed_rows = sentence_jobs.sentence_rows
    updated = []

    def then_rewritten(embedder: Embedder, notes: Sequence[SentenceSource]
                       ) -> list[dict[str, Any]]:
        rows = embed_rows(embedder, notes)
        updated.append(brain.writer.update(note.zk_id, new).note)
        return rows

    monkeypatch.setattr(sentence_jobs, "sentence_rows", then_rewritten)
    assert brain.sentence_jobs.process(project=project) == 1
    assert same_vectors(stored(db, note.zk_id), sentences(updated[0].title, new), embedder)
    assert queued(db, project) == []


def test_a_job_whose_worker_died_is_run_by_the_next_start(
        db: Database, embedder: Embedder, project: str) -> None:
    """The queue is in the database: a job claimed by a process that never finished it is
    claimed again once its claim ran out."""
    first = make_brain(db, embedder, clock=lambda: NOW)
    note = first.writer.add(WIZARD[1], project).note
    assert len(jobs.claim_project_jobs(db, kind="sentences", project=project, now=NOW,
                                       until=NOW + CLAIM_FOR, limit=10, worker="died")) == 1
    assert first.sentence_jobs.process(project=project) == 0  # still held by the dead worker
    later = make_brain(db, embedder, clock=lambda: NOW + CLAIM_FOR + timedelta(seconds=1))
    assert later.sentence_jobs.process(project=project) == 1
    assert same_vectors(stored(db, note.zk_id), sentences(note.title, WIZARD[1]), embedder)


def test_a_backup_keeps_the_sentences(brain: Brain, db: Database, embedder: Embedder,
                                      project: str) -> None:
    [release] = brain.importer.add_many([record(*RELEASE, project)])
    assert brain.sentence_jobs.process(project=project) == 1
    restore_records(db, export_records(db, [project]), as_project=f"{project}-copy")
    [copy] = [r["zk_id"] for r in export_records(db, [f"{project}-copy"]) if r["kind"] == "note"]
    assert copy != release
    assert same_vectors(stored(db, copy), sentences(*RELEASE), embedder)


def test_the_backfill_fills_notes_written_without_sentences_once(
        brain: Brain, db: Database, embedder: Embedder, project: str) -> None:
    ids = brain.importer.add_many([record(*RELEASE, project), record(*WIZARD, project)])
    dry = backfill_sentences(brain.deps, project=project)
    assert (dry.notes, dry.filled) == (2, 0) and stored(db, ids[0]) == []
    done = backfill_sentences(brain.deps, apply=True, project=project)
    assert (done.notes, done.filled, done.sentences) == (
        2, 2, len(sentences(*RELEASE)) + len(sentences(*WIZARD)))
    assert same_vectors(stored(db, ids[0]), sentences(*RELEASE), embedder)
    assert same_vectors(stored(db, ids[1]), sentences(*WIZARD), embedder)
    again = backfill_sentences(brain.deps, apply=True, project=project)
    assert (again.notes, again.filled) == (0, 0)
