"""The write pipeline: add, update, distill, and typed links between notes.

add_memory (permanent): construct -> embed, then one write transaction: dedup and link
candidates from the vector index -> one statement (note, entities, typed links, sentences job,
evolution job, session order) that answers with the note written. Fleeting notes skip linking
and evolution. Evolution and the note's sentence vectors are written off the request path
(kg_brain/domain/memory/evolution.py, sentences.py).

Adding and distilling each come in two halves: `prepare_*` does everything that is not a write
(enrich, embed, dedup, decide links) and returns what was decided; `write_*` writes it inside a
transaction the caller owns. `add` drafts the note without the database and decides in its
write transaction (one transaction per note); `distill` is the two halves in a transaction of
its own; a caller that must change several things at once (record_resolution: the fix, its
FIXES link and the failure's promotion) prepares each and writes them in one transaction.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from pydantic import BaseModel, Field

from kg_brain.base import validate
from kg_brain.base.errors import InvalidInput
from kg_brain.base.vocab import FOLLOWS_REASON, LinkType, MemoryType, NoteKind
from kg_brain.domain.deps import Deps
from kg_brain.domain.memory.reading import NoteReader
from kg_brain.domain.memory.sentences import sentence_job
from kg_brain.domain.memory.text import (
    NoteVectors,
    details,
    embed_notes,
    embed_text,
    mention_list,
    note_row,
    stored_kind,
)
from kg_brain.enrichment.llm.entities import subjects_differ
from kg_brain.enrichment.llm.rules import restates
from kg_brain.enrichment.llm.types import Candidate, Enrichment, LinkDecision, NoteDraft
from kg_brain.shapes.models import NoteView
from kg_brain.store import jobs, links, notes
from kg_brain.store.db import Tx
from kg_brain.store.entities import replace_mentions
from kg_brain.store.notes import NearestNote, NoteAdd, new_zk_id, with_fresh_ids
from kg_brain.store.statement import On
from kg_brain.text.redact.gate import hide

_LIVE = [MemoryType.PERMANENT.value, MemoryType.FLEETING.value]


class AddResult(BaseModel):
    note: NoteView
    deduplicated: bool = Field(
        False, description="true: an existing note matched and was reinforced")
    matched_zk_id: str | None = None
    similarity: float | None = None
    redacted: list[str] = Field(default_factory=list, description="kinds of secrets removed")
    evolution_queued: bool = False
    inferred_kind: str | None = Field(
        None, description="the note_kind read from the text when the caller gave 'general'")


@dataclass
class PreparedAdd:
    """A note ready to write: its `row` (drafted without the database), then, once the project's
    nearest notes are read, either the duplicate to reinforce or the links decided for it."""

    found: list[str]  # kinds of secrets redacted
    now: datetime
    row: dict[str, Any]
    enrichment: Enrichment
    kind: NoteKind
    duplicate: NearestNote | None = None
    decisions: list[LinkDecision] = field(default_factory=list)
    inferred_kind: str | None = None

    @property
    def zk_id(self) -> str:
        """The note this add ends in (a fresh id may replace a new note's on a collision)."""
        return self.duplicate["zk_id"] if self.duplicate else str(self.row["zk_id"])

    @property
    def rows(self) -> list[dict[str, Any]]:
        """The rows whose ids `with_fresh_ids` may replace."""
        return [self.row]


@dataclass
class PreparedDistill:
    """A fleeting note's promotion, decided: its new enrichment, vectors (embed_notes) and
    links."""

    current: dict[str, Any]
    enrichment: Enrichment
    vectors: NoteVectors
    decisions: list[LinkDecision]
    now: datetime


class Writer:
    def __init__(self, deps: Deps, reader: NoteReader) -> None:
        self.deps = deps
        self.settings = deps.settings
        self.db = deps.db
        self.reader = reader

    def clean_content(self, text: str) -> tuple[str, list[str]]:
        """Validate, then redact secrets (or refuse them, by setting)."""
        return self.hide(validate.content(text, self.settings.max_content_chars))

    def hide(self, text: str) -> tuple[str, list[str]]:
        """Secrets in any text a service writes hidden (or refused, by setting) before it is
        embedded or stored, with the kinds found for the answer; the store's gate checks again."""
        return hide(text, self.settings.secrets_mode)

    def add(self, content: str, project: str, memory_type: str = "permanent",
            note_kind: str = "general", pinned: bool = False,
            failure_signature: str | None = None, session_id: str | None = None) -> AddResult:
        """One embedding per note: dedup, link candidates and the stored vector all use it. One
        transaction reads the nearest notes, writes the note in one statement and answers with
        what it wrote. `session_id`: the client session writing (a permanent note FOLLOWS the
        one its session wrote last; none names no order)."""
        prepared = self.draft_add(content, project, memory_type, note_kind, pinned,
                                  failure_signature, session_id)

        def work(tx: Tx) -> AddResult:
            self.decide_add(prepared, tx)
            return self.added(prepared, tx, self.write_add(tx, prepared))

        return with_fresh_ids(lambda: self.db.write_tx(work), prepared.rows)

    def prepare_add(self, content: str, project: str, memory_type: str = "permanent",
                    note_kind: str = "general", pinned: bool = False,
                    failure_signature: str | None = None,
                    session_id: str | None = None) -> PreparedAdd:
        """Validate, redact, enrich, embed, check for a duplicate, decide links: no writes."""
        prepared = self.draft_add(content, project, memory_type, note_kind, pinned,
                                  failure_signature, session_id)
        self.decide_add(prepared, self.db)
        return prepared

    def draft_add(self, content: str, project: str, memory_type: str, note_kind: str,
                  pinned: bool, failure_signature: str | None,
                  session_id: str | None) -> PreparedAdd:
        """Validate, redact, enrich and embed: the note's row, without the database."""
        project = validate.project(project)
        session = validate.session_id(session_id)
        given = validate.note_kind(note_kind)
        mtype = validate.memory_type(memory_type)
        if mtype is MemoryType.ARCHIVED:
            raise InvalidInput(
                "memory_type 'archived' cannot be written; use fleeting or permanent")
        text, found = self.clean_content(content)
        enrichment = self.deps.enricher.enrich(text, given.value, project)
        kind = stored_kind(given, enrichment.note_kind)
        vector = self.deps.embedder.encode(embed_text(enrichment.title, text, enrichment.context))
        now = self.deps.clock()
        # its sentences: written by its sentences job (memory/sentences.py), off the request path
        row = note_row(new_zk_id(), text, project, mtype, kind, pinned, enrichment, vector,
                       None, now)
        if failure_signature:
            row["failure_signature"] = failure_signature
        if session:
            row["session_id"] = session
        inferred = kind.value if given is NoteKind.GENERAL and kind is not given else None
        return PreparedAdd(found, now, row, enrichment, kind, inferred_kind=inferred)

    def decide_add(self, prepared: PreparedAdd, on: On) -> None:
        """From the project's nearest notes (read through `on`, again when a transaction is
        retried): the duplicate to reinforce, or the links of the new note."""
        row = prepared.row
        nearest = self.nearest(row["embedding"], row["project"], _LIVE,
                               self.settings.link_top_k + 1, [], on)
        prepared.duplicate = self._duplicate_of(row["content"], prepared.kind, nearest)
        prepared.decisions = [] if prepared.duplicate else self._decide_links(
            row["zk_id"], prepared.enrichment, row["content"], prepared.kind, nearest,
            MemoryType(row["memory_type"]))

    def write_add(self, tx: Tx, prepared: PreparedAdd) -> NoteView | None:
        """In the caller's transaction: reinforce the duplicate (None), or write the note with
        its links, sentences job, evolution job, session order and mirror jobs in one statement
        and return it as written.
        Reads the row's id late: a retry may have replaced it."""
        if prepared.duplicate:
            notes.reinforce_note(tx, zk_id=prepared.duplicate["zk_id"], now=prepared.now)
            return None
        row, now = prepared.row, prepared.now
        gap = self.settings.session_gap_s
        ordered = bool(gap) and row["memory_type"] == MemoryType.PERMANENT.value
        decisions = prepared.decisions
        written = notes.add_note(
            tx, row=row, add=NoteAdd(
                links=[link_row(row["zk_id"], d) for d in decisions],
                similar=[d.zk_id for d in decisions if d.link_type is LinkType.RELATES_TO],
                jobs=[sentence_job(row["zk_id"], row["project"]),
                      *([evolution_job(row["zk_id"], row["project"])]
                        if self._evolves(decisions) else [])],
                session_id=row.get("session_id") if ordered else None),
            keep=self.settings.link_top_k, since=now - timedelta(seconds=gap),
            reason=FOLLOWS_REASON, mirror=tx.mirrors, now=now)
        if tx.mirrors:
            tx.mirrored.update(written["changed"])
        return NoteView.from_row(dict(written))

    def added(self, prepared: PreparedAdd, on: On | None = None,
              note: NoteView | None = None) -> AddResult:
        """What add_memory answers: `note` as written, else read in the write's transaction
        (`on`) or after it."""
        note = note or self.reader.get([prepared.zk_id], on)[0]
        match = prepared.duplicate
        if match:
            return AddResult(note=note, deduplicated=True, matched_zk_id=match["zk_id"],
                             similarity=round(float(match["similarity"]), 4),
                             redacted=prepared.found)
        return AddResult(note=note, redacted=prepared.found, inferred_kind=prepared.inferred_kind,
                         evolution_queued=self._evolves(prepared.decisions))

    def nearest(self, vector: list[float], project: str, types: list[str], k: int,
                exclude: list[str], on: On | None = None) -> list[NearestNote]:
        index_fetch = self.deps.index_fetch
        return notes.nearest_notes(on or self.db, vector=vector, project=project,
                                   memory_types=types,
                                   fetch=index_fetch.for_write(project, k),
                                   rescan=index_fetch.rescans(project), k=k, exclude=exclude)

    def _duplicate_of(self, text: str, kind: NoteKind,
                      nearest: list[NearestNote]) -> NearestNote | None:
        """The nearest note counts as the same note when it is at least DEDUP_MIN_COSINE similar,
        of the same kind (a fix is not its mistake), about the same things (another service,
        file, person or environment is another note), states the same details (embeddings
        barely tell "port 8001" from "port 8002") and neither announces a change nor denies
        what the other asserts ("is enabled" / "is not enabled" read alike too)."""
        if not nearest or nearest[0]["similarity"] < self.settings.dedup_min_cosine:
            return None
        match = nearest[0]
        same = (match["note_kind"] == kind.value and details(text) == details(match["content"])
                and not subjects_differ(text, match["content"])
                and restates(text, match["content"]))
        return match if same else None

    def _decide_links(self, zk_id: str, e: Enrichment, text: str, kind: NoteKind,
                      nearest: list[NearestNote], mtype: MemoryType) -> list[LinkDecision]:
        """Fleeting notes skip linking (the seed's steps 1-3 only)."""
        if mtype is not MemoryType.PERMANENT or self.settings.link_top_k == 0:
            return []
        candidates = [
            Candidate(zk_id=c["zk_id"], title=c["title"] or "", content=c["content"],
                      note_kind=c["note_kind"], similarity=float(c["similarity"]),
                      entities=c["entities"])
            for c in nearest
            if c["memory_type"] == MemoryType.PERMANENT.value and c["zk_id"] != zk_id
        ][: self.settings.link_top_k]
        if not candidates:
            return []
        draft = NoteDraft(title=e.title, content=text, context=e.context, note_kind=kind.value,
                          entities=[ref.key for ref in e.entities])
        known = {c.zk_id for c in candidates}
        return [d for d in self.deps.enricher.decide_links(draft, candidates) if d.zk_id in known]

    def _evolves(self, decisions: list[LinkDecision]) -> bool:
        return any(d.weight >= self.settings.evolution_min_cosine for d in decisions)

    def _write_links(self, tx: Tx, zk_id: str, project: str, decisions: list[LinkDecision],
                     now: datetime) -> None:
        """The links, the degree bound they may break and, when one is strong enough, the
        evolution job: all in the caller's transaction."""
        if decisions:
            links.merge_links(tx, now=now, rows=[link_row(zk_id, d) for d in decisions])
            similar = [d.zk_id for d in decisions if d.link_type is LinkType.RELATES_TO]
            if similar:
                links.prune_similarity_links(tx, zk_ids=[zk_id, *similar],
                                             keep=self.settings.link_top_k)
        if self._evolves(decisions):
            jobs.enqueue_jobs(tx, now=now, rows=[evolution_job(zk_id, project)])

    def link(self, tx: Tx, src: str, dst: str, link_type: LinkType, reason: str,
             weight: float = 1.0, origin: str = "explicit") -> None:
        """A link the caller asserts (a fix's FIXES, a handoff's PART_OF, one made by hand):
        never pruned, never rewritten by evolution."""
        links.merge_links(tx, now=self.deps.clock(), rows=[
            {"src": src, "dst": dst, "type": link_type.value, "reason": reason, "weight": weight,
             "origin": origin}])

    def update(self, zk_id: str, new_content: str) -> AddResult:
        """Re-enrich and re-embed; links stay, the previous version is kept as a revision."""
        current = self.reader.current(zk_id)
        if current["memory_type"] == MemoryType.ARCHIVED.value:
            raise InvalidInput(f"{current['zk_id']} is archived; restore_note it first")
        text, found = self.clean_content(new_content)
        e = self.deps.enricher.enrich(text, current["note_kind"], current["project"])
        [vectors] = embed_notes(self.deps.embedder, [(e.title, text, e.context)])
        self.db.write_tx(lambda tx: self.rewrite(tx, current["zk_id"], text, e, vectors,
                                                 "update"))
        return AddResult(note=self.reader.get([current["zk_id"]])[0], redacted=found)

    def distill(self, zk_id: str) -> AddResult:
        """Promote a fleeting note: the full permanent pipeline (re-enrich, embed, link, evolve),
        written in one transaction."""
        prepared = self.prepare_distill(zk_id)
        self.db.write_tx(lambda tx: self.write_distill(tx, prepared))
        return AddResult(note=self.reader.get([prepared.current["zk_id"]])[0],
                         evolution_queued=self._evolves(prepared.decisions))

    def prepare_distill(self, zk_id: str) -> PreparedDistill:
        """Re-enrich, embed and decide the links of a fleeting note's promotion: no writes."""
        current = self.reader.current(zk_id)
        if current["memory_type"] != MemoryType.FLEETING.value:
            raise InvalidInput(f"{current['zk_id']} is {current['memory_type']}, not fleeting")
        kind = NoteKind(current["note_kind"])
        e = self.deps.enricher.enrich(current["content"], kind.value, current["project"])
        [vectors] = embed_notes(self.deps.embedder, [(e.title, current["content"], e.context)])
        nearest = self.nearest(vectors[0], current["project"], [MemoryType.PERMANENT.value],
                               self.settings.link_top_k, [current["zk_id"]])
        decisions = self._decide_links(current["zk_id"], e, current["content"], kind, nearest,
                                       MemoryType.PERMANENT)
        return PreparedDistill(current, e, vectors, decisions, self.deps.clock())

    def write_distill(self, tx: Tx, p: PreparedDistill) -> None:
        """In the caller's transaction: the promoted note, its links and evolution job."""
        self.rewrite(tx, p.current["zk_id"], p.current["content"], p.enrichment, p.vectors,
                     "distill", memory_type=MemoryType.PERMANENT.value)
        self._write_links(tx, p.current["zk_id"], p.current["project"], p.decisions, p.now)

    def rewrite(self, tx: Tx, zk_id: str, text: str, e: Enrichment,
                vectors: NoteVectors, cause: str, **extra: Any) -> None:
        """New text, vector, sentences' vectors (`vectors`, as embed_notes gives them) and
        entities for a note in the caller's transaction, its previous version kept as a
        revision."""
        now = self.deps.clock()
        fields = {"title": e.title, "content": text, "context": e.context,
                  "keywords": e.keywords, "tags": e.tags, **extra}
        notes.rewrite_note(tx, zk_id=zk_id, fields=fields, vector=vectors[0],
                           sentences=vectors[1], now=now, cause=cause)
        replace_mentions(tx, rows=[{"zk_id": zk_id, "entities": mention_list(e.entities)}], now=now)


def link_row(src: str, d: LinkDecision) -> dict[str, Any]:
    """A link the enricher decided: automatic, so a similarity link among them may be pruned."""
    return {"src": src, "dst": d.zk_id, "type": LinkType(d.link_type).value,
            "reason": d.reason[:500], "weight": round(float(d.weight), 4), "origin": "auto"}


def evolution_job(zk_id: str, project: str) -> dict[str, str]:
    return {"key": f"evolve:{zk_id}", "kind": "evolve", "zk_id": zk_id, "project": project}
