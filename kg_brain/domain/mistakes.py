"""Mistake memory: record a failure, record its verified fix, and check for past mistakes before
starting a task.

A failure is a fleeting `mistake` note carrying a normalised signature (indexed), so the same
error from another checkout or run is matched exactly; a fix is a permanent `fix` note linked
FIXES -> the failure, which is promoted (distilled) in the same transaction: the fix, its link
and the promotion are prepared first (enrich, embed, decide links) and written all at once, so a
crash never leaves a fix unlinked or a fixed failure fleeting. Preflight ranks exact signature
matches first, then mistakes similar to the task (directly or through one of their fixes).
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from kg_brain.base import validate
from kg_brain.base.errors import InvalidInput
from kg_brain.base.vocab import LinkType, MemoryType, NoteKind
from kg_brain.domain.deps import Deps
from kg_brain.domain.memory.reading import NoteReader
from kg_brain.domain.memory.write import AddResult, Writer
from kg_brain.shapes.models import iso
from kg_brain.store import mistakes as statements
from kg_brain.store.db import Tx
from kg_brain.store.mistakes import PastMistakeRow
from kg_brain.store.notes import with_fresh_ids
from kg_brain.text.signature import normalize_failure

PREVIEW_CHARS = 300
MAX_TASK_CHARS = 4_000


class FixView(BaseModel):
    zk_id: str
    title: str
    preview: str
    created: str | None


class PastMistake(BaseModel):
    zk_id: str
    title: str
    preview: str
    failure_signature: str | None
    memory_type: str
    signature_match: bool = Field(description="same normalised failure signature")
    similarity: float
    fixes: list[FixView] = Field(description="verified fixes, newest first; empty = unsolved")


class FailureRecorded(BaseModel):
    project: str
    zk_id: str
    title: str
    failure_signature: str
    deduplicated: bool = Field(description="an existing note matched and was reinforced")
    redacted: list[str] = Field(default_factory=list, description="kinds of secrets removed")
    seen_before: list[PastMistake] = Field(
        description="earlier mistakes with the same signature, with their fixes")
    hint: str = "once a fix is verified: record_resolution(failure_zk_id, fix_content)"


class ResolutionRecorded(BaseModel):
    project: str
    fix_zk_id: str
    failure_zk_id: str
    failure_memory_type: str = Field(description="the failure after promotion")
    deduplicated: bool = Field(description="the fix matched an existing note, which was linked")
    redacted: list[str] = Field(default_factory=list, description="kinds of secrets removed")


class Preflight(BaseModel):
    project: str
    signature: str
    mistakes: list[PastMistake]
    hint: str = "recall(zk_ids) for full notes; avoid what these mistakes describe"


class Mistakes:
    def __init__(self, deps: Deps, reader: NoteReader, writer: Writer) -> None:
        self.deps = deps
        self.reader = reader
        self.writer = writer

    def record_failure(self, content: str, project: str, failure_signature: str | None = None,
                       session_id: str | None = None) -> FailureRecorded:
        """Store the failure as a fleeting mistake; report earlier occurrences and their fixes.
        `session_id`: the client session writing (kg_brain/domain/memory/write.py)."""
        project = validate.project(project)
        source = failure_signature if failure_signature and failure_signature.strip() else content
        signature = normalize_failure(self.writer.clean_content(source)[0])  # redacted first
        added = self.writer.add(content, project, MemoryType.FLEETING.value,
                                NoteKind.MISTAKE.value, failure_signature=signature,
                                session_id=session_id)
        seen = [m for m in self._past_mistakes(content, project, signature, 5,
                                               [added.note.zk_id]) if m.signature_match]
        return FailureRecorded(project=project, zk_id=added.note.zk_id, title=added.note.title,
                               failure_signature=signature, deduplicated=added.deduplicated,
                               redacted=added.redacted, seen_before=seen)

    def record_resolution(self, failure_zk_id: str, fix_content: str,
                          project: str | None = None,
                          session_id: str | None = None) -> ResolutionRecorded:
        """Write the fix, link it FIXES -> the failure, promote the failure (full distillation).
        The fix FOLLOWS the note its session (`session_id`) wrote last."""
        failure = self.reader.get([failure_zk_id])[0]
        if failure.note_kind != NoteKind.MISTAKE.value:
            raise InvalidInput(f"{failure.zk_id} is a {failure.note_kind} note, not a mistake; "
                               "record_failure first")
        if project is not None and validate.project(project) != failure.project:
            raise InvalidInput(f"{failure.zk_id} belongs to project {failure.project!r}, "
                               f"not {project!r}")
        writer = self.writer
        fix = writer.prepare_add(fix_content, failure.project, MemoryType.PERMANENT.value,
                                 NoteKind.FIX.value, session_id=session_id)
        if fix.zk_id == failure.zk_id:
            raise InvalidInput("fix_content repeats the failure; describe what fixed it")
        promotion = (writer.prepare_distill(failure.zk_id)
                     if failure.memory_type == MemoryType.FLEETING.value else None)

        def work(tx: Tx) -> AddResult:  # all or nothing: never a fix without its link
            writer.write_add(tx, fix)
            writer.link(tx, fix.zk_id, failure.zk_id, LinkType.FIXES, "verified fix")
            if promotion is not None:
                writer.write_distill(tx, promotion)
            return writer.added(fix, tx)

        saved = with_fresh_ids(lambda: self.deps.db.write_tx(work), fix.rows)
        return ResolutionRecorded(project=failure.project, fix_zk_id=saved.note.zk_id,
                                  failure_zk_id=failure.zk_id,
                                  failure_memory_type=MemoryType.PERMANENT.value
                                  if promotion is not None else failure.memory_type,
                                  deduplicated=saved.deduplicated, redacted=saved.redacted)

    def preflight_check(self, task: str, project: str, top_k: int = 5) -> Preflight:
        """Past mistakes most like the task, signature matches first, each with its fixes."""
        project = validate.project(project)
        task = validate.content(task, MAX_TASK_CHARS, "task")
        k = validate.bounded(top_k, 1, 50, "top_k")
        signature = normalize_failure(task)
        return Preflight(project=project, signature=signature,
                         mistakes=self._past_mistakes(task, project, signature, k, []))

    def _past_mistakes(self, text: str, project: str, signature: str, k: int,
                       exclude: list[str]) -> list[PastMistake]:
        rows = statements.preflight_mistakes(
            self.deps.db,
            question={"project": project, "signature": signature, "exclude": exclude},
            vector=self.deps.embedder.encode(text), fetch=max(100, k * 20), k=k)
        return [_past(r) for r in rows]


def _past(row: PastMistakeRow) -> PastMistake:
    m = row["mistake"]
    return PastMistake(
        zk_id=m["zk_id"], title=m.get("title") or "", preview=m["content"][:PREVIEW_CHARS],
        failure_signature=m.get("failure_signature"), memory_type=m["memory_type"],
        signature_match=bool(row["signature_match"]),
        similarity=round(float(row["similarity"] or 0.0), 4),
        fixes=[FixView(zk_id=f["zk_id"], title=f.get("title") or "",
                       preview=f["content"][:PREVIEW_CHARS], created=iso(f.get("created")))
               for f in row["fixes"]],
    )
