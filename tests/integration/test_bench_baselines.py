"""The benchmark baselines on the real server: flat vector search, the seed's deep search and the
numpy vector + BM25 fusion over the notes as stored."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import numpy as np
import pytest

from bench import store
from bench.baselines import Baselines, Fusion
from kg_brain.base.vocab import LinkType
from kg_brain.enrichment.embed import SentenceTransformerEmbedder
from kg_brain.root.app import Brain
from kg_brain.store.db import Database
from tests.support.brains import make_brain

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
TEXTS = {
    "pool": "The connection pool is exhausted when workers hold sessions across requests.",
    "labels": "Shipping labels print as raw ZPL on the warehouse printers over port 9100.",
    "token": "Deploy key rotation uses the identifier QX7ZETA-4411 in the vault path.",
    "retry": "Carrier polls retry with exponential backoff capped at five minutes.",
    "sensor": "New weather stations measure humidity with the SHT45 sensor.",
    "tests": "Integration tests clone a template database instead of migrating from scratch.",
}


@pytest.fixture
def brain(db: Database, embedder: SentenceTransformerEmbedder) -> Brain:
    return make_brain(db, embedder, clock=lambda: NOW)


@pytest.fixture
def baselines(brain: Brain) -> Baselines:
    return Baselines(brain.deps)


def _note(content: str, project: str, **extra: Any) -> dict[str, Any]:
    return {"content": content, "title": content[:40], "context": "", "keywords": [],
            "project": project, **extra}


def _seed(brain: Brain, project: str) -> dict[str, str]:
    ids = brain.importer.add_many([_note(t, project) for t in TEXTS.values()])
    return dict(zip(TEXTS, ids, strict=True))


def test_deep_reference_ranks_by_the_best_cosine_and_says_how(
        brain: Brain, baselines: Baselines, project: str) -> None:
    ids = _seed(brain, project)
    brain.db.write_tx(lambda tx: brain.writer.link(tx, ids["tests"], ids["pool"], LinkType.FIXES,
                                              "r", 0.9))
    hits = baselines.deep_reference("connection pool exhausted", project, hops=2, top_k=4)
    assert hits[0].zk_id == ids["pool"] and len(hits) == 4
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert all(0.0 <= h.score <= 1.0 and len(h.found_by) == 1 for h in hits)
    flat = baselines.vector_search("connection pool exhausted", project, top_k=1)
    assert hits[0].score >= flat[0].score  # no penalty: a later hop may only raise a score
    assert any(link.type == "FIXES" for link in hits[0].links)


def test_deep_reference_stamps_access_on_what_it_returns(
        brain: Brain, baselines: Baselines, project: str) -> None:
    ids = _seed(brain, project)
    hits = baselines.deep_reference("connection pool exhausted", project, hops=1, top_k=2)
    notes = {n.zk_id: n for n in brain.reader.get(list(ids.values()))}
    assert {z for z, n in notes.items() if n.access_count} == {h.zk_id for h in hits}


def test_vector_search_finds_a_small_projects_notes_beside_a_crowding_one(
        brain: Brain, baselines: Baselines, project: str) -> None:
    text = "The ingest worker drops messages when the Kafka consumer lag exceeds ten thousand."
    crowd = [_note(text, f"{project}-crowd", note_kind="mistake") for _ in range(300)]
    brain.importer.add_many(crowd)
    [own] = brain.importer.add_many([_note(text.replace("drops", "loses"), project,
                                   note_kind="mistake")])
    assert [h.zk_id for h in baselines.vector_search(text, project, top_k=3)] == [own]


def test_fusion_ranks_an_exact_text_first_and_skips_session_notes_by_default(
        brain: Brain, db: Database, embedder: SentenceTransformerEmbedder,
        project: str) -> None:
    ids = _seed(brain, project)
    summary_text = "Session summary: rotated the QX7ZETA-4411 deploy key."
    [summary] = brain.importer.add_many([_note(summary_text, project,
                                               note_kind="session_summary")])
    fusion = Fusion(brain.deps)
    assert fusion.ranked(TEXTS["retry"], project, top_k=3)[0][0] == ids["retry"]
    assert fusion.ranked("QX7ZETA-4411", project, top_k=3)[0][0] == ids["token"]
    assert summary not in fusion.ranked("rotated deploy key session", project, top_k=10)[0]
    assert fusion.ranked("rotated deploy key session", project, top_k=10,
                         include_contextual=True)[0][0] == summary
    assert fusion.ranked("anything", f"{project}-empty", top_k=3)[0] == []


def test_the_flat_cosine_ranks_every_note_of_the_project_by_its_exact_cosine(
        brain: Brain, embedder: SentenceTransformerEmbedder, project: str) -> None:
    ids = _seed(brain, project)
    brain.importer.add_many([_note(TEXTS["pool"], f"{project}-crowd") for _ in range(300)])
    query = "workers exhaust the database connection pool"
    q = np.asarray(embedder.encode(query))
    stored = {r["zk_id"]: np.asarray(r["embedding"])
              for r in store.project_vectors(brain.db, project=project)}
    cosine = {z: float(v @ q / np.linalg.norm(v) / np.linalg.norm(q)) for z, v in stored.items()}
    fusion = Fusion(brain.deps)
    flat = fusion.ranked(query, project, top_k=10, lexical=False)[0]
    assert flat == sorted(cosine, key=lambda z: -cosine[z])
    assert fusion.ranked(query, project, top_k=2, lexical=False)[0][0] == ids["pool"]
