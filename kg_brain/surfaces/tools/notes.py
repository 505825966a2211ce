"""Writing tools: add_memory, update_memory and distill_to_permanent, each answering the note
as saved."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from kg_brain.domain.memory.write import AddResult
from kg_brain.shapes.models import LinkView
from kg_brain.surfaces.tools.base import NoteKindName, ProjectArg, ToolArea, ZkId


class Saved(BaseModel):
    project: str
    zk_id: str
    title: str
    memory_type: str
    note_kind: str
    deduplicated: bool = Field(description="an existing note matched and was reinforced")
    similarity: float | None = None
    redacted: list[str] = Field(default_factory=list, description="kinds of secrets removed")
    evolution_queued: bool = False
    links: list[LinkView] = Field(default_factory=list)

    @classmethod
    def of(cls, result: AddResult) -> Saved:
        n = result.note
        return cls(project=n.project, zk_id=n.zk_id, title=n.title, memory_type=n.memory_type,
                   note_kind=n.note_kind, deduplicated=result.deduplicated,
                   similarity=result.similarity, redacted=result.redacted,
                   evolution_queued=result.evolution_queued, links=n.links)


class NoteTools(ToolArea):
    """New knowledge, corrections, and fleeting notes made permanent."""

    def add_memory(
        self,
        content: Annotated[str, Field(description="one piece of knowledge, self-contained")],
        project: ProjectArg = None,
        memory_type: Annotated[Literal["permanent", "fleeting"], Field(
            description="permanent: linked and searchable; fleeting: quick capture, inbox")
        ] = "permanent",
        note_kind: Annotated[NoteKindName, Field(description="what kind of note")] = "general",
        pinned: Annotated[bool, Field(description="never archive automatically")] = False,
    ) -> Saved:
        """Store new knowledge (decision, pattern, research, ...). Near-duplicates reinforce the
        existing note. For errors use record_failure; for session text capture_context."""
        return Saved.of(self.brain.writer.add(content, self._project(project), memory_type,
                                              note_kind, pinned, session_id=self._session()))

    def update_memory(self, zk_id: ZkId, new_content: Annotated[str, Field(
            description="the corrected or extended content (replaces the old)")]) -> Saved:
        """Correct or extend an existing note; the previous version is kept as a revision."""
        return Saved.of(self.brain.writer.update(zk_id, new_content))

    def distill_to_permanent(self, zk_id: ZkId) -> Saved:
        """Promote a fleeting note (from get_inbox) to permanent knowledge: re-enriched, linked."""
        return Saved.of(self.brain.writer.distill(zk_id))
