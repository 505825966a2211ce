"""Session tools and the mistakes memory: open and close a session, its inbox, captured text,
and failures with their fixes (preflight_check before a task)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

from kg_brain.domain import mistakes, sessions
from kg_brain.surfaces.tools.base import ProjectArg, ToolArea


class SessionStart(BaseModel):
    project: str
    context: sessions.SessionContext
    inbox: sessions.Inbox


class SessionTools(ToolArea):
    """A session's start and end, its inbox and captured text; failures, fixes, preflight."""

    def open_session(self, project: ProjectArg = None) -> SessionStart:
        """Start every coding session here: the project's state (last handoff, open thread,
        pinned notes, decisions, past mistakes with fixes) plus the inbox, in one call."""
        p = self._project(project)
        return SessionStart(project=p, context=self.get_session_context(p),
                            inbox=self.get_inbox(p, sessions.START_INBOX_LIMIT))

    def get_session_context(self, project: ProjectArg = None) -> sessions.SessionContext:
        """The project's state as headlines with ids, within the session token budget.
        Prefer open_session, which also returns the inbox."""
        return self.brain.sessions.context(self._project(project))

    def get_inbox(self, project: ProjectArg = None,
                  limit: Annotated[int, Field(ge=1, le=499, description="most notes")] = 50,
                  ) -> sessions.Inbox:
        """Fleeting notes awaiting distillation, oldest first: distill_to_permanent what is
        worth keeping."""
        p = self._project(project)
        return sessions.Inbox.of(p, self.brain.lifecycle.inbox(p, limit + 1), limit)

    def close_session(
        self,
        objective: Annotated[str, Field(description="what this session set out to do")],
        completed: Annotated[list[str], Field(description="what got done")],
        blockers: Annotated[list[str], Field(description="what is in the way; [] if nothing")],
        next_steps: Annotated[list[str], Field(description="what the next session should do")],
        key_files: Annotated[list[str] | None, Field(description="files that matter")] = None,
        project: ProjectArg = None,
    ) -> sessions.SessionClosed:
        """End every session here: writes one session_summary and the new active open_thread,
        archiving older open threads in the same transaction. The next open_session shows it."""
        return self.brain.sessions.close(self._project(project), objective, completed, blockers,
                                         next_steps, key_files, session_id=self._session())

    def capture_context(
        self,
        text: Annotated[str, Field(description="a chunk of session text, notes or a transcript")],
        project: ProjectArg = None,
    ) -> sessions.Captured:
        """Split session text into atomic statements, each kept as a fleeting note (deduplicated).
        For one known fact use add_memory instead."""
        return self.brain.sessions.capture(text, self._project(project))

    def preflight_check(
        self,
        task: Annotated[str, Field(description="the task about to start, or an error message")],
        project: ProjectArg = None,
        top_k: Annotated[int, Field(ge=1, le=50, description="number of mistakes")] = 5,
    ) -> mistakes.Preflight:
        """Before coding a task: past mistakes most similar to it, each with its verified fix
        (same failure signature first). Read-only: a check is not a use of the notes (no
        access stamp)."""
        return self.brain.mistakes.preflight_check(task, self._project(project), top_k)

    def record_failure(
        self,
        content: Annotated[str, Field(description="what failed: the error, command, context")],
        project: ProjectArg = None,
        failure_signature: Annotated[str | None, Field(
            description="the error message or trace to match on; omit to derive from content")
        ] = None,
    ) -> mistakes.FailureRecorded:
        """Capture a fresh failure as a fleeting mistake note with a normalised signature; shows
        earlier occurrences and their fixes. Follow with record_resolution once fixed."""
        return self.brain.mistakes.record_failure(content, self._project(project),
                                                  failure_signature, session_id=self._session())

    def record_resolution(
        self,
        failure_zk_id: Annotated[str, Field(description="the mistake note's id")],
        fix_content: Annotated[str, Field(description="the verified fix and why it works")],
        project: Annotated[str | None, Field(
            description="omit to use the failure's project")] = None,
    ) -> mistakes.ResolutionRecorded:
        """Capture a validated fix: a permanent fix note linked FIXES -> the failure, which is
        promoted to permanent. preflight_check will surface it for similar tasks."""
        return self.brain.mistakes.record_resolution(failure_zk_id, fix_content, project,
                                                     session_id=self._session())
