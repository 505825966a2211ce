"""The OpenCode plugin's own records: one per OpenCode session, and each failed command's last
outcome in a project (kg_brain/surfaces/plugin_session.py)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypedDict

from kg_brain.store.statement import On, read, write


class StateRow(TypedDict):
    state: dict[str, Any]


class SessionKey(TypedDict):
    session_id: str


class FailedCommand(TypedDict):
    key: str
    command: str
    mistakes: list[str]


class CommandKey(TypedDict):
    key: str


@read("plugin/session_state.cypher")
def session_state(on: On, *, session_id: str) -> StateRow | None:
    """The session's record, None for a session not seen yet."""


@write("plugin/save_session.cypher")
def save_session(on: On, *, session_id: str, project: str, state: dict[str, Any],
                 now: datetime) -> SessionKey:
    """Create or update the session's record."""


@read("plugin/failed_commands.cypher")
def failed_commands(on: On, *, project: str, limit: int) -> list[FailedCommand]:
    """Commands whose last run failed, newest first."""


@write("plugin/record_command_run.cypher")
def record_command_run(on: On, *, project: str, key: str, command: str, outcome: str,
                       mistake: str | None, now: datetime) -> CommandKey:
    """The command's last outcome."""
