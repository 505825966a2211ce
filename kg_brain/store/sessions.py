"""Session start context and handoff bookkeeping."""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypedDict

from kg_brain.store.statement import On, read, write


class SessionState(TypedDict):
    summary: dict[str, Any] | None
    thread: dict[str, Any] | None
    pinned: list[dict[str, Any]]
    context: list[dict[str, Any]]
    decisions: list[dict[str, Any]]
    mistakes: list[dict[str, Any]]


class ArchivedThread(TypedDict):
    zk_id: str


@read("sessions/session_context.cypher")
def session_context(on: On, *, project: str, limit: int) -> SessionState:
    """Headlines of a project's state, each list at most `limit` long."""


@write("sessions/archive_open_threads.cypher", "zk_id")
def archive_open_threads(on: On, *, project: str, keep: str, now: datetime,
                         reason: str) -> list[ArchivedThread]:
    """Older open threads archived and superseded by `keep`."""
