"""The write side: add, update, distill, recall, revisions, and the durable evolution queue.

add_memory (permanent): construct -> embed content + context -> dedup check -> link candidates
from the vector index -> one write transaction (note, typed links, evolution job). Evolution runs
off the request path: `process_evolution` claims jobs, rewrites neighbours' context, re-embeds
them and keeps the previous version as a Revision, completing the job in the same transaction.
"""

from __future__ import annotations

import logging
import re
import os
import socket
from datetime import timedelta
from collections import Counter
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field

from kg_brain import validate
from kg_brain.app import Clock
from kg_brain.db import Database, Tx
from kg_brain.embed import Embedder
from kg_brain.errors import InvalidInput, NotFound
from kg_brain.llm.heuristic import HeuristicEnricher
from kg_brain.llm.types import Candidate, Enricher, Enrichment, LinkDecision, NoteDraft
from kg_brain.models import NoteView, iso
from kg_brain.redact import redact
from kg_brain.settings import Settings
from kg_brain.store.model import LinkType, MemoryType, NoteKind
from kg_brain.store.notes import (
    check_zk_id,
    create_notes,
    get_notes,
    new_zk_id,
    with_fresh_ids,
)
from kg_brain.store.share import IndexFetch

log = logging.getLogger(__name__)
_LIVE = [MemoryType.PERMANENT.value, MemoryType.FLEETING.value]


class AddResult(BaseModel):
    note: NoteView
    deduplicated: bool = Field(False, description="true: an existing note matched and was reinforced")
    matched_zk_id: str | None = None
    similarity: float | None = None
    redacted: list[str] = Field(default_factory=list, description="kinds of secrets removed")
    evolution_queued: bool = False


class Revision(BaseModel):
    version: int
    title: str
    content: str
    context: str
    keywords: list[str]
    tags: list[str]
    memory_type: str | None
    created: str | None
    cause: str


def embed_text(title: str, content: str, context: str) -> str:
    """What a note's vector encodes: the seed's content + context, led by the title claim
    unless the content already states it (a heuristic title is the first sentence: encoding it
    twice costs embedding time and tilts the vector towards that sentence)."""
    lead = title if title and _squash(title) not in _squash(content) else ""
    return "\n".join(part for part in (lead, content, context) if part)


def _squash(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


class Memory:
    def __init__(self, settings: Settings, db: Database, embedder: Embedder, enricher: Enricher,
                 clock: Clock, index_fetch: IndexFetch | None = None) -> None:
        self.settings = settings
        self.db = db
        self.index_fetch = index_fetch or IndexFetch(db)
        self.embedder = embedder
        self.enricher = enricher
        self.clock = clock
        self.worker_id = f"{socket.gethostname()}:{os.getpid()}"
        self._bulk_enricher = HeuristicEnricher()

    # --- writing ---------------------------------------------------------------------------------
    def clean_content(self, text: str) -> tuple[str, list[str]]:
        """Validate, then redact secrets (or refuse them, by setting)."""
        text = validate.content(text, self.settings.max_content_chars)
        cleaned, found = redact(text)
        if found and self.settings.secrets_mode == "reject":
            raise InvalidInput(f"content contains secrets ({', '.join(sorted(set(found)))}); "
                               "remove them and try again")
        return cleaned, found

    def add(self, content: str, project: str, memory_type: str = "permanent",
            note_kind: str = "general", pinned: bool = False,
            failure_signature: str | None = None) -> AddResult:
        project = validate.project(project)
        kind = validate.note_kind(note_kind)
        mtype = validate.memory_type(memory_type)
        if mtype is MemoryType.ARCHIVED:
            raise InvalidInput("memory_type 'archived' cannot be written; use fleeting or permanent")
        text, found = self.clean_content(content)
        enrichment = self.enricher.enrich(text, kind.value, project)
        vector = self.embedder.encode(embed_text(enrichment.title, text, enrichment.context))
        nearest = self._nearest(vector, project, _LIVE, self.settings.link_top_k + 1, [])
        duplicate = self._duplicate_of(text, kind, nearest)
        if duplicate:
            return self._reinforce(duplicate, found)
        now = self.clock()
        zk_id = new_zk_id()
        row = note_row(zk_id, text, project, mtype, kind, pinned, enrichment, vector, now)
        if failure_signature:
            row["failure_signature"] = failure_signature
        links = self._decide_links(zk_id, enrichment, text, kind, project, vector, nearest, mtype)
        queued = self._write_new(row, links, now)
        note = self.get([row["zk_id"]])[0]
        return AddResult(note=note, redacted=found, evolution_queued=queued)

    def _nearest(self, vector: list[float], project: str, types: list[str], k: int,
                 exclude: list[str]) -> list[dict[str, Any]]:
        return self.db.read("notes/nearest_notes", vector=vector, project=project,
                            memory_types=types, fetch=self.index_fetch(project, k, k * 20), k=k,
                            exclude=exclude)

    def _duplicate_of(self, text: str, kind: NoteKind,
                      nearest: list[dict[str, Any]]) -> dict[str, Any] | None:
        """The nearest note counts as the same note when it is at least DEDUP_THRESHOLD similar,
        of the same kind (a fix is not its mistake) and states the same details: embeddings
        barely tell "port 8001" from "port 8002"."""
        if not nearest or nearest[0]["similarity"] < self.settings.dedup_threshold:
            return None
        match = nearest[0]
        same = match["note_kind"] == kind.value and details(text) == details(match["content"])
        return match if same else None

    def _reinforce(self, match: dict[str, Any], found: list[str]) -> AddResult:
        self.db.write("notes/reinforce_note", zk_id=match["zk_id"], now=self.clock())
        note = self.get([match["zk_id"]])[0]
        return AddResult(note=note, deduplicated=True, matched_zk_id=match["zk_id"],
                         similarity=round(float(match["similarity"]), 4), redacted=found)

    def _decide_links(self, zk_id: str, e: Enrichment, text: str, kind: NoteKind, project: str,
                      vector: list[float], nearest: list[dict[str, Any]],
                      mtype: MemoryType) -> list[LinkDecision]:
        """Fleeting notes skip linking (the seed's steps 1-3 only)."""
        if mtype is not MemoryType.PERMANENT or self.settings.link_top_k == 0:
            return []
        candidates = [
            Candidate(zk_id=c["zk_id"], title=c["title"] or "", content=c["content"],
                      note_kind=c["note_kind"], similarity=float(c["similarity"]))
            for c in nearest
            if c["memory_type"] == MemoryType.PERMANENT.value and c["zk_id"] != zk_id
        ][: self.settings.link_top_k]
        if not candidates:
            return []
        draft = NoteDraft(title=e.title, content=text, context=e.context, note_kind=kind.value)
        known = {c.zk_id for c in candidates}
        return [d for d in self.enricher.decide_links(draft, candidates) if d.zk_id in known]

    def _write_new(self, row: dict[str, Any], links: list[LinkDecision], now: Any) -> bool:
        """Note, links and evolution job in one transaction: never a half-written note."""
        evolve = any(d.weight >= self.settings.evolution_min_similarity for d in links)

        def work(tx: Tx) -> None:  # reads row["zk_id"] late: a retry may have replaced it
            create_notes(tx, [row])
            if links:
                tx.run("links/merge_links", now=now,
                       rows=[_link_row(row["zk_id"], d) for d in links])
            if evolve:
                tx.run("jobs/enqueue_jobs", now=now, rows=[_job(row["zk_id"], row["project"])])

        with_fresh_ids(lambda: self.db.write_tx(work), [row])
        return evolve

    def add_many(self, records: list[dict[str, Any]], batch_size: int = 256,
                 progress: Callable[[int], None] | None = None) -> list[str]:
        """Bulk import: every record is validated and enriched (statistical key phrases, no LLM)
        before anything is written, so a bad record refuses the whole import; then batches are
        embedded and written with one UNWIND statement each. No linking or evolution (like
        fleeting capture): one embedding per note keeps it near the raw embedding throughput;
        distillation or update re-enriches fully."""
        rows = []
        for number, record in enumerate(records, start=1):
            try:
                rows.append(self.import_row(record))
            except InvalidInput as exc:
                raise InvalidInput(f"record {number}: {exc}; nothing was imported") from exc
        ids: list[str] = []
        for start in range(0, len(rows), batch_size):
            batch = rows[start:start + batch_size]
            vectors = self.embedder.encode_many(
                [embed_text(r["title"], r["content"], r["context"]) for r in batch])
            for row, vector in zip(batch, vectors, strict=True):
                row["embedding"] = vector
            ids += with_fresh_ids(
                lambda rows=batch: self.db.write_tx(lambda tx: create_notes(tx, rows)), batch)
            if progress:
                progress(len(batch))
        return ids

    def import_row(self, record: dict[str, Any]) -> dict[str, Any]:
        """One import record validated and enriched into a note row, without its embedding."""
        if not isinstance(record, dict) or "content" not in record:
            raise InvalidInput("each imported record needs a 'content' field")
        project = validate.project(str(record.get("project") or "general"))
        kind = validate.note_kind(str(record.get("note_kind") or "general"))
        mtype = validate.memory_type(str(record.get("memory_type") or "permanent"))
        text, _ = self.clean_content(str(record["content"]))
        if record.get("title"):
            e = Enrichment(title=str(record["title"]), context=str(record.get("context") or ""),
                           keywords=list(record.get("keywords") or []),
                           tags=list(record.get("tags") or []))
        else:
            e = self._bulk_enricher.enrich(text, kind.value, project)
        now = self.clock()
        row = note_row(new_zk_id(), text, project, mtype, kind,
                             bool(record.get("pinned")), e, [], now)
        del row["embedding"]
        return row

    def link(self, tx: Tx, src: str, dst: str, link_type: LinkType, reason: str,
             weight: float) -> None:
        tx.run("links/merge_links", now=self.clock(), rows=[
            {"src": src, "dst": dst, "type": link_type.value, "reason": reason, "weight": weight}])

    # --- reading ---------------------------------------------------------------------------------
    def get(self, zk_ids: list[str]) -> list[NoteView]:
        ids = [check_zk_id(z) for z in zk_ids]
        notes = self.db.read_tx(lambda tx: get_notes(tx, ids))
        missing = set(ids) - {n.zk_id for n in notes}
        if missing:
            raise NotFound(f"no note with id {', '.join(sorted(missing))}")
        return notes

    def _current(self, zk_id: str) -> dict[str, Any]:
        rows = self.db.read("notes/note_for_update", zk_id=check_zk_id(zk_id))
        if not rows:
            raise NotFound(f"no note with id {zk_id}")
        return rows[0]

    # --- rewriting -------------------------------------------------------------------------------
    def update(self, zk_id: str, new_content: str) -> AddResult:
        """Re-enrich and re-embed; links stay, the previous version is kept as a revision."""
        current = self._current(zk_id)
        if current["memory_type"] == MemoryType.ARCHIVED.value:
            raise InvalidInput(f"{current['zk_id']} is archived; restore_note it first")
        text, found = self.clean_content(new_content)
        e = self.enricher.enrich(text, current["note_kind"], current["project"])
        self._rewrite(current["zk_id"], text, e, "update", {})
        return AddResult(note=self.get([current["zk_id"]])[0], redacted=found)

    def distill(self, zk_id: str) -> AddResult:
        """Promote a fleeting note: the full permanent pipeline (re-enrich, embed, link, evolve)."""
        current = self._current(zk_id)
        if current["memory_type"] != MemoryType.FLEETING.value:
            raise InvalidInput(f"{current['zk_id']} is {current['memory_type']}, not fleeting")
        kind = NoteKind(current["note_kind"])
        e = self.enricher.enrich(current["content"], kind.value, current["project"])
        vector = self._rewrite(current["zk_id"], current["content"], e, "distill",
                               {"memory_type": MemoryType.PERMANENT.value})
        nearest = self._nearest(vector, current["project"], [MemoryType.PERMANENT.value],
                                self.settings.link_top_k, [current["zk_id"]])
        links = self._decide_links(current["zk_id"], e, current["content"], kind,
                                   current["project"], vector, nearest, MemoryType.PERMANENT)
        now = self.clock()
        evolve = any(d.weight >= self.settings.evolution_min_similarity for d in links)

        def work(tx: Tx) -> None:
            if links:
                tx.run("links/merge_links", now=now,
                       rows=[_link_row(current["zk_id"], d) for d in links])
            if evolve:
                tx.run("jobs/enqueue_jobs", now=now,
                       rows=[_job(current["zk_id"], current["project"])])

        self.db.write_tx(work)
        return AddResult(note=self.get([current["zk_id"]])[0], evolution_queued=evolve)

    def _rewrite(self, zk_id: str, text: str, e: Enrichment, cause: str,
                 extra: dict[str, Any]) -> list[float]:
        vector = self.embedder.encode(embed_text(e.title, text, e.context))
        fields = {"title": e.title, "content": text, "context": e.context,
                  "keywords": e.keywords, "tags": e.tags, **extra}
        self.db.write("notes/rewrite_note", zk_id=zk_id, fields=fields, vector=vector,
                      now=self.clock(), cause=cause)
        return vector

    def revisions(self, zk_id: str) -> list[Revision]:
        current = self._current(zk_id)
        rows = self.db.read("notes/list_revisions", zk_id=current["zk_id"])
        return [Revision(**{**r, "created": iso(r["created"]), "title": r["title"] or "",
                            "context": r["context"] or "", "keywords": r["keywords"] or [],
                            "tags": r["tags"] or []}) for r in rows]

    def restore_revision(self, zk_id: str, version: int) -> NoteView:
        """Bring back a kept version; the version being replaced is itself kept first."""
        chosen = next((r for r in self.revisions(zk_id) if r.version == version), None)
        if chosen is None:
            raise NotFound(f"{zk_id} has no revision {version}")
        e = Enrichment(title=chosen.title, context=chosen.context, keywords=chosen.keywords,
                       tags=chosen.tags)
        self._rewrite(check_zk_id(zk_id), chosen.content, e, f"restore revision {version}", {})
        return self.get([zk_id])[0]

    # --- evolution queue -------------------------------------------------------------------------
    def process_evolution(self, limit: int = 20,
                          on_rewritten: Callable[[list[str]], object] | None = None,
                          project: str | None = None) -> int:
        """Drain up to `limit` evolution jobs (of one project if given); returns how many were
        completed here. `on_rewritten` hears the ids of notes each committed job rewrote."""
        now = self.clock()
        scope = {"project": validate.project(project)} if project is not None else {}
        jobs = self.db.write("jobs/claim_project_jobs" if scope else "jobs/claim_jobs",
                             kind="evolve", now=now, limit=limit,
                             until=now + timedelta(minutes=2), worker=self.worker_id, **scope)
        done = 0
        for job in jobs:
            try:
                done += self._evolve(job["key"], job["zk_id"], on_rewritten)
            except InvalidInput as exc:  # nothing sensible to retry
                self.db.write("jobs/complete_job", key=job["key"], now=self.clock(),
                              state="failed", error=str(exc))
        return done

    def _evolve(self, key: str, zk_id: str,
                on_rewritten: Callable[[list[str]], object] | None) -> int:
        targets = self.db.read("notes/evolution_targets", zk_id=zk_id,
                               min_weight=self.settings.evolution_min_similarity)
        rewrites = []
        for t in targets:
            new = NoteDraft(title=t["title"] or "", content=t["content"],
                            context=t["context"] or "", note_kind=t["note_kind"])
            old = NoteDraft(title=t["target_title"] or "", content=t["target_content"],
                            context=t["target_context"] or "", note_kind=t["target_kind"])
            context = self.enricher.evolve_context(old, new, LinkType(t["link_type"]))
            if context and context != old.context:
                vector = self.embedder.encode(embed_text(old.title, old.content, context))
                rewrites.append({"zk_id": t["target"], "fields": {"context": context},
                                 "vector": vector})
        now = self.clock()

        def work(tx: Tx) -> int:
            if not tx.run("jobs/complete_job", key=key, now=now, state="done", error=None):
                return 0  # someone else completed it: apply nothing
            for r in rewrites:
                tx.run("notes/rewrite_note", zk_id=r["zk_id"], fields=r["fields"],
                       vector=r["vector"], now=now, cause=f"evolution from {zk_id}")
            return 1

        applied = self.db.write_tx(work)
        if applied and rewrites and on_rewritten:
            on_rewritten([r["zk_id"] for r in rewrites])
        return applied

    def queue_depth(self) -> dict[str, int]:
        return {r["kind"]: int(r["pending"]) for r in self.db.read("jobs/queue_depth")}


_DETAIL = re.compile(r"\d+(?:[.:,/-]\d+)*|\b\w*(?:[_./]\w+)+\b|\b[a-z]+[A-Z]\w*\b|\b[A-Z]{2,}\w*\b")


def details(text: str) -> Counter[str]:
    """The specifics two otherwise alike texts can differ in: numbers, versions, paths,
    identifiers and acronyms."""
    return Counter(m.group(0).lower() for m in _DETAIL.finditer(text))


def note_row(zk_id: str, text: str, project: str, mtype: MemoryType, kind: NoteKind,
             pinned: bool, e: Enrichment, vector: list[float], now: Any) -> dict[str, Any]:
    """Every property of a new note, as create_notes writes it."""
    return {
        "zk_id": zk_id, "title": e.title, "content": text, "context": e.context,
        "keywords": e.keywords, "tags": e.tags, "memory_type": mtype.value,
        "note_kind": kind.value, "pinned": bool(pinned), "project": project,
        "created": now, "updated": now, "access_count": 0, "embedding": vector,
    }


def _link_row(src: str, d: LinkDecision) -> dict[str, Any]:
    return {"src": src, "dst": d.zk_id, "type": LinkType(d.link_type).value,
            "reason": d.reason[:500], "weight": round(float(d.weight), 4)}


def _job(zk_id: str, project: str) -> dict[str, str]:
    return {"key": f"evolve:{zk_id}", "kind": "evolve", "zk_id": zk_id, "project": project}

