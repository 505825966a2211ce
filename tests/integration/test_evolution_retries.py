"""Evolution jobs that keep failing: bounded attempts with backoff, then a dead letter that
brain_stats shows and `kg-brain jobs retry` queues again."""

from __future__ import annotations

import argparse
from dataclasses import replace
from datetime import timedelta

from kg_brain.base.clock import utc_now
from kg_brain.base.vocab import LinkType
from kg_brain.domain.memory.evolution import MAX_ATTEMPTS, Evolution, backoff
from kg_brain.enrichment.embed import SentenceTransformerEmbedder
from kg_brain.enrichment.llm.heuristic import HeuristicEnricher
from kg_brain.enrichment.llm.types import NoteDraft
from kg_brain.root.app import Brain
from kg_brain.store import jobs
from kg_brain.store.db import Database
from kg_brain.surfaces.maintenance import cmd_jobs
from tests.support.brains import make_brain, settings_for


class FlakyModel(HeuristicEnricher):
    """The heuristic enricher behind an endpoint that fails until it is repaired."""

    broken = True

    def evolve_context(self, old: NoteDraft, new: NoteDraft, link_type: LinkType) -> str | None:
        if self.broken:
            raise RuntimeError("model endpoint answered 502")
        return super().evolve_context(old, new, link_type)


class Clock:
    def __init__(self) -> None:
        self.now = utc_now() + timedelta(days=400)  # later than any other test's jobs

    def __call__(self):  # type: ignore[no-untyped-def]
        return self.now


def _job_state(db: Database, key: str) -> dict[str, object]:
    rows, _, _ = db.driver.execute_query(
        "MATCH (j:Job {key: $key}) RETURN j.state AS state, j.attempts AS attempts, "
        "j.error AS error", key=key, database_=db.conn.database)
    return dict(rows[0])


def _queue_one(brain: Brain, project: str) -> str:
    """Two closely related notes: the second queues an evolution job; its key."""
    brain.writer.add("Flaky CI runs come from tests sharing one Neo4j database without "
                     "project isolation.", project)
    second = brain.writer.add("Give every test its own project namespace so flaky CI runs "
                              "caused by a shared Neo4j database go away.", project)
    assert second.evolution_queued
    return f"evolve:{second.note.zk_id}"


def test_a_failing_job_backs_off_then_becomes_a_dead_letter_until_retried(
        db: Database, embedder: SentenceTransformerEmbedder, project: str) -> None:
    clock = Clock()
    brain = make_brain(db, embedder, clock=clock, dedup_min_cosine=0.99)
    key = _queue_one(brain, project)
    model = FlakyModel()
    evolution = Evolution(replace(brain.deps, enricher=model))

    for attempt in range(1, MAX_ATTEMPTS):
        assert evolution.process(project=project) == 0
        assert _job_state(db, key) == {"state": "pending", "attempts": attempt,
                                       "error": "RuntimeError: model endpoint answered 502"}
        clock.now += backoff(attempt) - timedelta(seconds=1)
        assert evolution.process(project=project) == 0  # still backing off: not claimed
        assert _job_state(db, key)["attempts"] == attempt
        clock.now += timedelta(seconds=2)
    assert evolution.process(project=project) == 0
    assert _job_state(db, key)["state"] == "failed"
    clock.now += timedelta(days=1)
    assert evolution.process(project=project) == 0  # a dead letter is never claimed again

    health = brain.stats.report()
    assert health.status == "degraded" and health.jobs_failed["evolve"] >= 1
    assert any(d.key == key and d.attempts == MAX_ATTEMPTS and "502" in (d.error or "")
               for d in health.dead_letters)

    model.broken = False
    assert cmd_jobs(argparse.Namespace(action="retry", project=project), settings_for(db)) == 0
    assert _job_state(db, key) == {"state": "pending", "attempts": 0, "error": None}
    assert evolution.process(project=project) == 1
    assert _job_state(db, key)["state"] == "done"


def test_a_job_whose_worker_keeps_dying_becomes_a_dead_letter(
        db: Database, embedder: SentenceTransformerEmbedder, project: str) -> None:
    clock = Clock()
    brain = make_brain(db, embedder, clock=clock, dedup_min_cosine=0.99)
    key = _queue_one(brain, project)
    for _ in range(MAX_ATTEMPTS):  # claimed, then the worker dies: the claim runs out
        jobs.claim_project_jobs(db, kind="evolve", project=project, now=clock.now,
                                until=clock.now + timedelta(minutes=2), limit=10, worker="dies")
        clock.now += timedelta(minutes=3)
    assert brain.evolution.process(project=project) == 0
    state = _job_state(db, key)
    assert state["state"] == "failed" and "without finishing" in str(state["error"])
