"""A new note's sentence vectors, off the request path.

add_memory writes the note with its whole vector and, in the same statement, a `sentences` job
on the durable queue (kg_brain/store/jobs.py); the maintenance scheduler drains it as it drains
evolution's (kg_brain/surfaces/maintenance.py). Until its job runs a note ranks by its plain
cosine (fragments/nearest_in_project), as one written before notes kept sentences does.

A batch claims up to `limit` jobs, reads the notes among them that hold no sentences yet, embeds
all their sentences (memory/text.sentences) in one encode call and writes them in one
transaction that deletes the jobs. The write is the sentence backfill's (upgrade/fill_sentences):
a note whose title or content changed since it was read, or that got its sentences meanwhile, is
left alone (its rewrite wrote its new text's sentences), so a stale batch never overwrites
newer sentences and a job run twice writes once. The queue is in the database: a job whose
worker died is claimed again when its claim runs out, and a note left without sentences for any
other reason is found by `kg-brain migrate sentences`. A failed batch is retried with
evolution's backoff; a job claimed more than MAX_ATTEMPTS times without finishing ends `failed`
(counted by brain_stats), its note searched by its cosine until `kg-brain migrate sentences
--apply` fills it.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Sequence
from typing import Any

from kg_brain.base import validate
from kg_brain.base.errors import StoreUnavailable
from kg_brain.domain.deps import Deps
from kg_brain.domain.memory.evolution import CLAIM_FOR, MAX_ATTEMPTS, backoff
from kg_brain.domain.memory.text import sentences
from kg_brain.enrichment.embed.base import Embedder
from kg_brain.store import jobs, upgrade
from kg_brain.store.db import Tx
from kg_brain.store.upgrade import SentenceSource

log = logging.getLogger(__name__)
KIND = "sentences"


def sentence_job(zk_id: str, project: str) -> dict[str, str]:
    return {"key": f"{KIND}:{zk_id}", "kind": KIND, "zk_id": zk_id, "project": project}


def sentence_rows(embedder: Embedder, notes: Sequence[SentenceSource]) -> list[dict[str, Any]]:
    """The rows upgrade/fill_sentences writes: each note's sentences embedded, all notes' in one
    encode call, with the title and content they were split from (notes with no words have
    none and are left out)."""
    parts = {r["zk_id"]: sentences(r["title"] or "", r["content"] or "") for r in notes}
    texts = [p for ps in parts.values() for p in ps]
    vectors = iter(embedder.encode_many(texts) if texts else [])
    return [{"zk_id": r["zk_id"], "title": r["title"], "content": r["content"],
             "sentences": [next(vectors) for _ in parts[r["zk_id"]]]}
            for r in notes if parts[r["zk_id"]]]


class SentenceJobs:
    def __init__(self, deps: Deps) -> None:
        self.deps = deps
        self.db = deps.db
        self.worker_id = f"{socket.gethostname()}:{os.getpid()}"

    def process(self, limit: int = 50, project: str | None = None) -> int:
        """One batch of up to `limit` sentences jobs (of one project if given); returns how many
        were run here."""
        now = self.deps.clock()
        until = now + CLAIM_FOR
        claimed = (jobs.claim_project_jobs(self.db, kind=KIND, project=validate.project(project),
                                           now=now, until=until, limit=limit,
                                           worker=self.worker_id)
                   if project is not None else
                   jobs.claim_jobs(self.db, kind=KIND, now=now, until=until, limit=limit,
                                   worker=self.worker_id))
        live = [j for j in claimed if j["attempts"] <= MAX_ATTEMPTS]
        for job in claimed:
            if job["attempts"] > MAX_ATTEMPTS:
                log.warning("sentences job %s failed for good: claimed %d times", job["key"],
                            job["attempts"])
                jobs.complete_job(self.db, key=job["key"], now=now, state="failed",
                                  error=f"claimed {job['attempts']} times without finishing")
        if not live:
            return 0
        try:
            rows = sentence_rows(self.deps.embedder, upgrade.notes_to_fill(
                self.db, zk_ids=[j["zk_id"] for j in live]))
            keys = [j["key"] for j in live]

            def work(tx: Tx) -> int:
                if rows:
                    upgrade.fill_sentences(tx, rows=rows)
                return len(jobs.drop_jobs(tx, keys=keys))

            return self.db.write_tx(work)
        except StoreUnavailable:
            raise  # the database, not the jobs: the drain ends and backs off
        except Exception as exc:  # noqa: BLE001 - one bad batch must not stop the queue
            error = f"{type(exc).__name__}: {exc}"[:500]
            log.warning("sentences batch of %d jobs failed, retrying: %s", len(live), error)
            for job in live:
                jobs.defer_job(self.db, key=job["key"], until=now + backoff(job["attempts"]),
                               error=error)
            return 0
