"""A note's sentences on the real server: written with the note, replaced with its text, gone
with it, and the vector channel re-scored by them."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import numpy as np
import pytest

from kg_brain.domain import search as search_module
from kg_brain.domain.memory.text import sentences
from kg_brain.domain.search import Search
from kg_brain.enrichment.embed import Embedder
from kg_brain.root.app import Brain
from kg_brain.store.db import Database
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


def test_a_note_whose_one_sentence_answers_ranks_above_a_closer_whole_note(
        brain: Brain, project: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The vector channel alone (no lexical weight, no floor): the whole notes' cosines put
    WIZARD first; RELEASE's best sentence lifts it above."""
    release, wizard = brain.importer.add_many(
        [record(*RELEASE, project), record(*WIZARD, project)])
    monkeypatch.setattr(search_module, "OWN_IDF_MAX", 0)  # the floor: Tuning.floor
    vector_only = Search(brain.deps, replace(brain.search.tuning, w_lex=0.0, w_exact=0.0,
                                             floor=-1.0, same_n=0))
    hits = vector_only.search_memory(QUESTION, project, top_k=2, stamp=False)
    assert [h.zk_id for h in hits] == [release, wizard]
    assert hits[0].relevance < hits[1].relevance  # the cosine alone orders them the other way


def test_writing_rewriting_and_forgetting_a_note_keep_its_sentences(
        brain: Brain, db: Database, embedder: Embedder, project: str) -> None:
    [release] = brain.importer.add_many([record(*RELEASE, project)])
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
    added = brain.writer.add(WIZARD[1], project).note  # add_memory's path
    assert same_vectors(stored(db, added.zk_id), sentences(added.title, WIZARD[1]), embedder)


def test_a_backup_keeps_the_sentences(brain: Brain, db: Database, embedder: Embedder,
                                      project: str) -> None:
    [release] = brain.importer.add_many([record(*RELEASE, project)])
    restore_records(db, export_records(db, [project]), as_project=f"{project}-copy")
    [copy] = [r["zk_id"] for r in export_records(db, [f"{project}-copy"]) if r["kind"] == "note"]
    assert copy != release
    assert same_vectors(stored(db, copy), sentences(*RELEASE), embedder)


def test_the_backfill_fills_notes_written_without_sentences_once(
        brain: Brain, db: Database, embedder: Embedder, project: str) -> None:
    ids = brain.importer.add_many([record(*RELEASE, project), record(*WIZARD, project)])
    db.write_tx(lambda tx: tx._tx.run(  # as a note written before notes kept sentences
        "MATCH (p:Sentence)-[:SENTENCE_OF]->(n:Note {project: $project}) DETACH DELETE p",
        project=project).consume())
    dry = backfill_sentences(brain.deps, project=project)
    assert (dry.notes, dry.filled) == (2, 0) and stored(db, ids[0]) == []
    done = backfill_sentences(brain.deps, apply=True, project=project)
    assert (done.notes, done.filled, done.sentences) == (
        2, 2, len(sentences(*RELEASE)) + len(sentences(*WIZARD)))
    assert same_vectors(stored(db, ids[0]), sentences(*RELEASE), embedder)
    assert same_vectors(stored(db, ids[1]), sentences(*WIZARD), embedder)
    again = backfill_sentences(brain.deps, apply=True, project=project)
    assert (again.notes, again.filled) == (0, 0)
