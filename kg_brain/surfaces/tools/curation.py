"""Curation tools: forget (and restore) notes, browse them, edit, link and unlink them by hand,
and their kept versions."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from kg_brain.domain.browsing import NotePage
from kg_brain.domain.curation import (
    Edited,
    ForgetReport,
    History,
    LinkChange,
    RestoreReport,
    Reverted,
)
from kg_brain.surfaces.budget import fit_page
from kg_brain.surfaces.tools.base import (
    LinkTypeName,
    MemoryTypeName,
    NoteKindName,
    ProjectArg,
    ToolArea,
    ZkId,
    ZkIds,
)


class CurationTools(ToolArea):
    """Forgetting, browsing and editing notes and links by hand, and their versions."""

    def forget_note(
        self, zk_ids: ZkIds,
        reason: Annotated[str, Field(description="why (wrong, sensitive, unwanted, dismissed)")],
        hard: Annotated[bool, Field(description="erase for good, revisions too (secrets); "
                                                "no undo")] = False,
    ) -> ForgetReport:
        """Forget wrong, sensitive or unwanted notes, or dismiss inbox items: gone from every
        view, links dropped; a tombstone keeps them from coming back. restore_forgotten undoes
        it within the undo window; hard=true erases at once."""
        return self.brain.curation.forget(zk_ids, reason, hard)

    def restore_forgotten(self, zk_ids: ZkIds) -> RestoreReport:
        """Undo forget_note within the undo window: the notes come back with their entities
        and the links whose other end still exists."""
        return self.brain.curation.restore_forgotten(zk_ids)

    def list_notes(
        self,
        project: ProjectArg = None,
        note_kinds: Annotated[list[NoteKindName] | None, Field(
            description="only these kinds")] = None,
        tags: Annotated[list[str] | None, Field(description="only notes with every tag")] = None,
        pinned: Annotated[bool | None, Field(description="only pinned (true) or unpinned "
                                                         "(false) notes")] = None,
        memory_types: Annotated[list[MemoryTypeName] | None, Field(
            description="default permanent and fleeting")] = None,
        since: Annotated[str | None, Field(description="created at or after (ISO-8601)")] = None,
        until: Annotated[str | None, Field(description="created before (ISO-8601)")] = None,
        entity: Annotated[str | None, Field(
            description="only notes mentioning this entity (key or name)")] = None,
        order: Annotated[Literal["newest", "oldest", "updated"], Field(
            description="newest or oldest created first, or recently updated first")
        ] = "newest",
        limit: Annotated[int, Field(ge=1, le=100, description="notes per page")] = 20,
        cursor: Annotated[str | None, Field(
            description="next_cursor of the previous page")] = None,
    ) -> NotePage:
        """Browse notes by kind, tag, pinned state, type, date range or entity: previews, a page
        at a time (newest first by default). recall(zk_ids) for full notes."""
        return fit_page("list_notes", self.brain.browsing.list_notes(
            self._project(project), note_kinds, tags, pinned, memory_types, since, until, entity,
            order, limit, cursor))

    def edit_note(
        self, zk_id: ZkId,
        pinned: Annotated[bool | None, Field(description="pin (never archived) or unpin")] = None,
        tags: Annotated[list[str] | None, Field(description="the new tags (replace)")] = None,
        note_kind: Annotated[NoteKindName | None, Field(description="the new kind")] = None,
        title: Annotated[str | None, Field(description="the new title")] = None,
    ) -> Edited:
        """Pin or unpin, retag, re-kind or retitle a note; the previous version is kept
        (note_history). To change the content use update_memory."""
        return self.brain.curation.edit(zk_id, pinned, tags, note_kind, title)

    def link_notes(
        self,
        from_zk_id: Annotated[str, Field(description="the note the link starts at")],
        to_zk_id: Annotated[str, Field(description="the note it points to")],
        type: Annotated[LinkTypeName, Field(description="the relationship")],
        reason: Annotated[str, Field(description="why they are related")],
    ) -> LinkChange:
        """Link two notes of a project by hand with a typed relationship; a hand-made link is
        never pruned or rewritten."""
        return self.brain.curation.link(from_zk_id, to_zk_id, type, reason)

    def unlink_notes(
        self,
        from_zk_id: Annotated[str, Field(description="the note the link starts at")],
        to_zk_id: Annotated[str, Field(description="the note it points to")],
        type: Annotated[LinkTypeName, Field(description="the relationship to remove")],
    ) -> LinkChange:
        """Remove a typed link between two notes, whoever made it."""
        return self.brain.curation.unlink(from_zk_id, to_zk_id, type)

    def note_history(self, zk_id: ZkId) -> History:
        """A note's kept previous versions (updates, edits, evolution), newest first, as
        previews; revert_note brings one back."""
        return self.brain.curation.history(zk_id)

    def revert_note(self, zk_id: ZkId, version: Annotated[int, Field(
            ge=1, description="a version from note_history")]) -> Reverted:
        """Bring back a kept version of a note; the current version is kept too."""
        return self.brain.curation.revert(zk_id, version)
