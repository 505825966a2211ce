"""What every tool area shares: the argument types (their descriptions are the tools' schema),
the annotations that tell a client what a tool changes, and the project and client session each
call resolves."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.types import ToolAnnotations
from pydantic import Field

from kg_brain.root.app import Brain
from kg_brain.surfaces import client_session
from kg_brain.surfaces.project import claimer, resolve_project

ALL_PROJECTS = "*"

NoteKindName = Literal["mistake", "fix", "pattern", "research", "decision", "general",
                       "open_thread", "session_summary", "project_context"]
LinkTypeName = Literal["RELATES_TO", "SUPPORTS", "EXTENDS", "CONTRADICTS", "CAUSED_BY", "FIXES",
                       "SUPERSEDES", "PART_OF", "FOLLOWS"]
MemoryTypeName = Literal["permanent", "fleeting", "archived"]
ProjectArg = Annotated[str | None, Field(
    description="project name; omit for this workspace's project (the repository of the "
                "client's workspace, else KG_BRAIN_PROJECT, else the server's, else 'general')")]
ScopeArg = Annotated[str | None, Field(
    description="project name, '*' for all projects; omit for this workspace's project")]
ZkId = Annotated[str, Field(description="note id, ZK- followed by 8 hex digits")]
ZkIds = Annotated[list[str], Field(min_length=1, max_length=50, description="note ids")]
TopK = Annotated[int, Field(ge=1, le=100, description="number of results")]
Contextual = Annotated[bool, Field(
    description="also search the session handoff notes (session_summary, open_thread); "
                "every other kind, project_context included, is searched by default")]

READ = ToolAnnotations(readOnlyHint=True, destructiveHint=False, idempotentHint=True,
                       openWorldHint=False)
# A lookup that stamps access (count, last use) on what it returns: being found is what keeps
# a note from archiving (kg_brain/domain/lifecycle.py). The search reads; the stamp is written
# just after it, off the call's path (kg_brain/domain/access.py), so the tool still writes and
# says so honestly; repeating it stamps again (not idempotent).
STAMP = ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=False,
                        openWorldHint=False)
ADD = ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=False,
                      openWorldHint=False)
REWRITE = ToolAnnotations(readOnlyHint=False, destructiveHint=True, idempotentHint=False,
                          openWorldHint=False)
ARCHIVE = ToolAnnotations(readOnlyHint=False, destructiveHint=True, idempotentHint=True,
                          openWorldHint=False)
FORGET = ToolAnnotations(readOnlyHint=False, destructiveHint=True, idempotentHint=False,
                         openWorldHint=False)
LINK = ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=True,
                       openWorldHint=False)


class ToolArea:
    """Tools of one area as methods over one Brain; tools.BrainTools gathers every area."""

    def __init__(self, brain: Brain) -> None:
        self.brain = brain

    def _project(self, given: str | None) -> str:
        return resolve_project(self.brain.settings, given, claimer(self.brain.projects))

    @staticmethod
    def _session() -> str | None:
        """The client session the call comes from (kg_brain/surfaces/client_session.py)."""
        return client_session.current()

    def _scope(self, given: str | None) -> str | None:
        return None if given == ALL_PROJECTS else self._project(given)
