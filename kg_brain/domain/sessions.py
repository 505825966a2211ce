"""Session ergonomics: the project's state at session start, the handoff at its end, and capture of
raw session text as atomic fleeting notes.

The start context is headlines with ids inside a token budget (the agent recalls what it needs);
the handoff writes one session_summary and one active open_thread and archives the older threads
in the same transaction, so a crash never leaves a project without its latest handoff.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from kg_brain.base import validate
from kg_brain.base.vocab import LinkType, MemoryType, NoteKind
from kg_brain.domain.deps import Deps
from kg_brain.domain.memory.text import NoteVectors, embed_notes, note_row
from kg_brain.domain.memory.write import Writer
from kg_brain.enrichment.llm.types import Enrichment
from kg_brain.shapes.models import NoteView, iso
from kg_brain.store import entities, notes
from kg_brain.store import sessions as statements
from kg_brain.store.db import Tx
from kg_brain.store.notes import new_zk_id

CHARS_PER_TOKEN = 4
LIST_LIMIT = 20
PREVIEW_CHARS = 200
MAX_CAPTURED = 50
START_INBOX_LIMIT = 10  # open_session's share of the inbox; get_inbox pages further
_TITLE_CHARS = 120


class Headline(BaseModel):
    zk_id: str
    title: str
    note_kind: str
    updated: str | None = None


class MistakeHeadline(Headline):
    fixes: list[Headline] = Field(default_factory=list, description="notes linked FIXES -> it")


class Handoff(BaseModel):
    zk_id: str
    title: str
    content: str
    created: str | None


class SessionContext(BaseModel):
    project: str
    last_session: Handoff | None = Field(None, description="the latest session_summary")
    open_thread: Handoff | None = Field(None, description="the active open_thread: start here")
    pinned: list[Headline] = Field(default_factory=list)
    project_context: list[Headline] = Field(default_factory=list)
    decisions: list[Headline] = Field(default_factory=list)
    mistakes: list[MistakeHeadline] = Field(default_factory=list)
    token_budget: int
    approx_tokens: int
    omitted: int = Field(0, description="headlines left out to stay within the budget")
    hint: str = "recall(zk_ids) returns full notes; deep_search for questions"


class InboxItem(BaseModel):
    zk_id: str
    title: str
    preview: str
    note_kind: str
    created: str | None


class Inbox(BaseModel):
    project: str
    count: int = Field(description="notes listed here")
    more: bool = Field(False, description=(
        "more fleeting notes wait: get_inbox with a limit (full tool profile)"))
    notes: list[InboxItem]
    hint: str = ("distill_to_permanent(zk_id) what is worth keeping (full tool profile); the "
                 "rest decays")

    @classmethod
    def of(cls, project: str, notes: list[NoteView], limit: int) -> Inbox:
        """`notes` may hold one more than `limit`: that one only says there are more."""
        items = [InboxItem(zk_id=n.zk_id, title=n.title, preview=n.content[:PREVIEW_CHARS],
                           note_kind=n.note_kind, created=n.created) for n in notes[:limit]]
        return cls(project=project, count=len(items), more=len(notes) > limit, notes=items)


class SessionClosed(BaseModel):
    project: str
    summary_zk_id: str
    open_thread_zk_id: str
    archived_threads: list[str] = Field(description="older open threads this handoff replaced")


class CapturedNote(BaseModel):
    zk_id: str
    title: str
    deduplicated: bool


class Captured(BaseModel):
    project: str
    notes: list[CapturedNote]
    skipped: int = Field(0, description=f"statements beyond the first {MAX_CAPTURED}")
    hint: str = ("captured as fleeting notes: distill_to_permanent the ones worth keeping "
                 "(full tool profile)")


class Sessions:
    def __init__(self, deps: Deps, writer: Writer) -> None:
        self.deps = deps
        self.writer = writer

    def context(self, project: str) -> SessionContext:
        """One read, then the sections in priority order until the budget is spent."""
        project = validate.project(project)
        row = statements.session_context(self.deps.db, project=project, limit=LIST_LIMIT)
        tokens = self.deps.settings.session_context_tokens
        budget = _Budget(tokens * CHARS_PER_TOKEN)
        ctx = SessionContext(project=project, token_budget=tokens, approx_tokens=0)
        ctx.last_session = budget.handoff(row["summary"])
        ctx.open_thread = budget.handoff(row["thread"])
        ctx.pinned = budget.headlines(row["pinned"], Headline)
        ctx.project_context = budget.headlines(row["context"], Headline)
        ctx.decisions = budget.headlines(row["decisions"], Headline)
        ctx.mistakes = budget.headlines(row["mistakes"], MistakeHeadline)
        ctx.approx_tokens = -(-budget.used // CHARS_PER_TOKEN)
        ctx.omitted = budget.omitted
        return ctx

    def close(self, project: str, objective: str, completed: list[str], blockers: list[str],
              next_steps: list[str], key_files: list[str] | None = None,
              session_id: str | None = None) -> SessionClosed:
        """Write the summary and the new open thread, link them, archive older threads: one tx.
        Both name the client session (`session_id`) that wrote them; as digests of it they take
        no part in its order (cypher/notes/add_note.cypher)."""
        project = validate.project(project)
        session = validate.session_id(session_id)
        now = self.deps.clock()
        rows = [note_row(new_zk_id(), text, project, MemoryType.PERMANENT, kind, False, e,
                         vector, parts, now)
                for kind, text, e, (vector, parts) in self._handoff(
                    project, objective, completed, blockers, next_steps, key_files)]
        if session:
            for row in rows:
                row["session_id"] = session
        summary_id, thread_id = rows[0]["zk_id"], rows[1]["zk_id"]

        def work(tx: Tx) -> list[str]:
            notes.insert_notes(tx, rows, now)
            self.writer.link(tx, thread_id, summary_id, LinkType.PART_OF,
                             "handoff of this session")
            archived = [r["zk_id"] for r in statements.archive_open_threads(
                tx, project=project, keep=thread_id, now=now, reason=f"superseded by {thread_id}")]
            entities.shift_counts(tx, zk_ids=archived, delta=-1)
            return archived

        archived = self.deps.db.write_tx(work)
        return SessionClosed(project=project, summary_zk_id=summary_id,
                             open_thread_zk_id=thread_id, archived_threads=archived)

    def revise(self, summary_zk_id: str, thread_zk_id: str, project: str, objective: str,
               completed: list[str], blockers: list[str], next_steps: list[str],
               key_files: list[str] | None = None) -> SessionClosed | None:
        """Rewrite a session's handoff in place (its summary and open thread), each previous
        version kept as a revision: a session keeps one handoff however often it is brought up
        to date. None when either note is gone (forgotten) or of another project: the caller writes
        a new one."""
        project = validate.project(project)
        ids = (summary_zk_id, thread_zk_id)
        found = [notes.note_for_update(self.deps.db, zk_id=validate.zk_id(i)) for i in ids]
        if any(row is None or row["project"] != project for row in found):
            return None
        prepared = self._handoff(project, objective, completed, blockers, next_steps,
                                 key_files)

        def work(tx: Tx) -> None:
            for zk_id, (_, text, e, vectors) in zip(ids, prepared, strict=True):
                self.writer.rewrite(tx, zk_id, text, e, vectors, "handoff brought up to date")

        self.deps.db.write_tx(work)
        return SessionClosed(project=project, summary_zk_id=summary_zk_id,
                             open_thread_zk_id=thread_zk_id, archived_threads=[])

    def _handoff(self, project: str, objective: str, completed: list[str], blockers: list[str],
                 next_steps: list[str], key_files: list[str] | None,
                 ) -> list[tuple[NoteKind, str, Enrichment, NoteVectors]]:
        """The summary's and the open thread's kind, text, enrichment (fixed titles) and
        vectors (embed_notes)."""
        objective = validate.content(objective, 2_000, "objective")
        files = key_files or []
        summary = _section_text(objective, [("Completed", completed), ("Blockers", blockers),
                                            ("Next steps", next_steps), ("Key files", files)])
        thread = _section_text(objective, [("Next steps", next_steps), ("Blockers", blockers),
                                           ("Key files", files)])
        first_step = next((s.strip() for s in next_steps if s.strip()), objective)
        return [self._contextual(summary, f"Session summary: {objective}", project,
                                 NoteKind.SESSION_SUMMARY),
                self._contextual(thread, f"Open thread: {first_step}", project,
                                 NoteKind.OPEN_THREAD)]

    def _contextual(self, text: str, title: str, project: str, kind: NoteKind,
                    ) -> tuple[NoteKind, str, Enrichment, NoteVectors]:
        """A contextual note's text, enrichment with a fixed title, and vectors (embed_notes)."""
        text, _ = self.writer.clean_content(text)
        title, _ = self.writer.clean_content(title)  # titles quote the objective and next step
        title = title if len(title) <= _TITLE_CHARS else title[: _TITLE_CHARS - 1].rstrip() + "…"
        enrichment = self.deps.enricher.enrich(text, kind.value, project).model_copy(
            update={"title": title})
        [vectors] = embed_notes(self.deps.embedder, [(title, text, enrichment.context)])
        return kind, text, enrichment, vectors

    def capture(self, text: str, project: str) -> Captured:
        """Split session text into self-contained statements and keep each as a fleeting note."""
        project = validate.project(project)
        text, _ = self.writer.clean_content(text)  # whole: a secret may span statements
        pieces = self.deps.enricher.split_atomic(text)
        captured = []
        for statement in pieces[:MAX_CAPTURED]:
            added = self.writer.add(statement, project, MemoryType.FLEETING.value)
            captured.append(CapturedNote(zk_id=added.note.zk_id, title=added.note.title,
                                         deduplicated=added.deduplicated))
        return Captured(project=project, notes=captured,
                        skipped=max(len(pieces) - MAX_CAPTURED, 0))


class _Budget:
    """Counts serialised characters; handoffs may use a third of the budget each, cut to fit."""

    def __init__(self, chars: int) -> None:
        self.chars = chars
        self.used = 0
        self.omitted = 0

    def handoff(self, row: dict[str, Any] | None) -> Handoff | None:
        if not row:
            return None
        room = min(self.chars // 3, self.chars - self.used)
        content = row["content"]
        if len(content) > room:
            content = content[: max(room - 1, 0)].rstrip() + "…"
        item = Handoff(zk_id=row["zk_id"], title=row["title"] or "", content=content,
                       created=iso(row["created"]))
        self.used += len(item.model_dump_json())
        return item

    def headlines(self, rows: list[dict[str, Any]], model: type[Headline]) -> list[Any]:
        taken = []
        for row in rows:
            item = model(**_headline(row))
            cost = len(item.model_dump_json())
            if self.used + cost > self.chars:
                self.omitted += 1
                continue
            self.used += cost
            taken.append(item)
        return taken


def _headline(row: dict[str, Any]) -> dict[str, Any]:
    out = {"zk_id": row["zk_id"], "title": row.get("title") or "", "note_kind": row["note_kind"],
           "updated": iso(row.get("updated"))}
    if "fixes" in row:
        out["fixes"] = [_headline(f) for f in row["fixes"]]
    return out


def _section_text(objective: str, sections: list[tuple[str, list[str]]]) -> str:
    lines = [f"Objective: {objective}"]
    for name, items in sections:
        kept = [i.strip() for i in items if i and i.strip()]
        if kept:
            lines.append(f"{name}:")
            lines += [f"- {i}" for i in kept]
    return "\n".join(lines)
