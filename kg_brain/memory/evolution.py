"""Memory evolution (A-MEM), off the request path: a durable queue of jobs in Neo4j.

A job refines the context of the notes a new note linked to strongly, re-embeds them and keeps
each previous version as a Revision. It completes in the same transaction as its rewrites, so a
job applies exactly once even when two workers race or one crashes mid-way.
"""

from __future__ import annotations

import os
import socket
from datetime import timedelta

from kg_brain import validate
from kg_brain.db import Tx
from kg_brain.deps import Deps
from kg_brain.errors import InvalidInput
from kg_brain.llm.types import NoteDraft
from kg_brain.memory.text import embed_text
from kg_brain.store import jobs, notes
from kg_brain.vocab import LinkType

CLAIM_FOR = timedelta(minutes=2)


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
        for job in claimed:
            try:
                done += self._evolve(job["key"], job["zk_id"])
            except InvalidInput as exc:  # nothing sensible to retry
                jobs.complete_job(self.db, key=job["key"], now=self.deps.clock(),
                                  state="failed", error=str(exc))
        return done

    def _evolve(self, key: str, zk_id: str) -> int:
        targets = notes.evolution_targets(self.db, zk_id=zk_id,
                                          min_weight=self.deps.settings.evolution_min_similarity)
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
                notes.rewrite_note(tx, zk_id=r["zk_id"], fields=r["fields"], vector=r["vector"],
                                   now=now, cause=f"evolution from {zk_id}")
            return 1

        return self.db.write_tx(work)

    def queue_depth(self) -> dict[str, int]:
        return {r["kind"]: int(r["pending"]) for r in jobs.queue_depth(self.db)}
