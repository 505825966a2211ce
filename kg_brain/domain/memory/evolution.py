"""Memory evolution (A-MEM), off the request path: a durable queue of jobs in Neo4j.

A job refines the context of the notes a new note linked to strongly, re-embeds them and keeps
each previous version as a Revision. It completes in the same transaction as its rewrites, so a
job applies exactly once even when two workers race or one crashes mid-way. A worker that is
asked to stop finishes the job in hand and gives the rest of its claim back.

A job that fails is retried with exponential backoff (RETRY_BASE, doubling, at most RETRY_CAP)
up to MAX_ATTEMPTS; then it is a dead letter: state `failed` with its error, counted by
brain_stats and queued again by `kg-brain jobs retry`. A job claimed more than MAX_ATTEMPTS
times without finishing (its worker died each time) is dead-lettered the same way. An
unreachable database is not the job's fault: that error ends the drain and costs no attempt
beyond the claim.
"""

from __future__ import annotations

import logging
import os
import socket
from datetime import datetime, timedelta

from kg_brain.base import validate
from kg_brain.base.errors import InvalidInput, StoreUnavailable
from kg_brain.base.vocab import LinkType
from kg_brain.domain.deps import Deps
from kg_brain.domain.memory.text import embed_text
from kg_brain.enrichment.llm.types import NoteDraft
from kg_brain.store import jobs, notes
from kg_brain.store.db import Tx

log = logging.getLogger(__name__)
CLAIM_FOR = timedelta(minutes=2)
MAX_ATTEMPTS = 5
RETRY_BASE = timedelta(seconds=30)
RETRY_CAP = timedelta(hours=1)


def backoff(attempts: int) -> timedelta:
    """The wait after the `attempts`-th failed attempt: 30 s, 1 min, 2 min, ... at most 1 h."""
    return min(RETRY_BASE * 2 ** max(attempts - 1, 0), RETRY_CAP)


class Evolution:
    def __init__(self, deps: Deps) -> None:
        self.deps = deps
        self.db = deps.db
        self.worker_id = f"{socket.gethostname()}:{os.getpid()}"

    def process(self, limit: int = 20, project: str | None = None) -> int:
        """Drain up to `limit` evolution jobs (of one project if given); returns how many were
        completed here."""
        now = self.deps.clock()
        claim = {"kind": "evolve", "now": now, "limit": limit, "until": now + CLAIM_FOR,
                 "worker": self.worker_id}
        claimed = (jobs.claim_project_jobs(self.db, project=validate.project(project), **claim)
                   if project is not None else jobs.claim_jobs(self.db, **claim))
        done = 0
        for n, job in enumerate(claimed):
            if self.deps.stopping.is_set():
                jobs.release_jobs(self.db, keys=[j["key"] for j in claimed[n:]],
                                  worker=self.worker_id)
                break
            done += self._attempt(job)
        return done

    def _attempt(self, job: jobs.ClaimedJob) -> int:
        if job["attempts"] > MAX_ATTEMPTS:
            return self._fail(job, f"claimed {job['attempts']} times without finishing", True)
        try:
            return self._evolve(job["key"], job["zk_id"])
        except StoreUnavailable:
            raise  # the database, not the job: the drain ends and backs off
        except InvalidInput as exc:  # nothing sensible to retry
            return self._fail(job, str(exc), True)
        except Exception as exc:  # noqa: BLE001 - any fault of one job must not stop the queue
            return self._fail(job, f"{type(exc).__name__}: {exc}"[:500],
                              job["attempts"] >= MAX_ATTEMPTS)

    def _fail(self, job: jobs.ClaimedJob, error: str, give_up: bool) -> int:
        now: datetime = self.deps.clock()
        if give_up:
            log.warning("evolution job %s failed for good: %s", job["key"], error)
            jobs.complete_job(self.db, key=job["key"], now=now, state="failed", error=error)
        else:
            wait = backoff(job["attempts"])
            log.warning("evolution job %s failed (attempt %d of %d), retrying in %s: %s",
                        job["key"], job["attempts"], MAX_ATTEMPTS, wait, error)
            jobs.defer_job(self.db, key=job["key"], until=now + wait, error=error)
        return 0

    def retry_failed(self, project: str | None = None) -> list[str]:
        """Dead letters back to the queue (all projects when none given); their keys."""
        scope = validate.project(project) if project is not None else None
        return [r["key"] for r in jobs.retry_jobs(self.db, kind="evolve", project=scope)]

    def _evolve(self, key: str, zk_id: str) -> int:
        targets = notes.evolution_targets(self.db, zk_id=zk_id,
                                          min_weight=self.deps.settings.evolution_min_cosine)
        refined = []
        for t in targets:
            new = NoteDraft(title=t["title"] or "", content=t["content"],
                            context=t["context"] or "", note_kind=t["note_kind"])
            old = NoteDraft(title=t["target_title"] or "", content=t["target_content"],
                            context=t["target_context"] or "", note_kind=t["target_kind"])
            context = self.deps.enricher.evolve_context(old, new, LinkType(t["link_type"]))
            if context and context != old.context:
                refined.append((t["target"], embed_text(old.title, old.content, context), context))
        vectors = self.deps.embedder.encode_many([text for _, text, _ in refined])
        rewrites = [{"zk_id": target, "fields": {"context": context}, "vector": vector}
                    for (target, _, context), vector in zip(refined, vectors, strict=True)]
        now = self.deps.clock()

        def work(tx: Tx) -> int:
            if jobs.complete_job(tx, key=key, now=now, state="done", error=None) is None:
                return 0  # someone else completed it: apply nothing
            for r in rewrites:
                # only the context changes: the sentences stay
                notes.rewrite_note(tx, zk_id=r["zk_id"], fields=r["fields"], vector=r["vector"],
                                   sentences=None, now=now, cause=f"evolution from {zk_id}")
            return 1

        return self.db.write_tx(work)

    def queue_depth(self) -> dict[str, int]:
        return {r["kind"]: int(r["pending"]) for r in jobs.queue_depth(self.db)}
