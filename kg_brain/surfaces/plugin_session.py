"""What the OpenCode plugin keeps per OpenCode session, on the service (in Neo4j), so that every
process serving the session (`opencode run --continue`, the TUI's server, a restart) shares it:
the user's requests, the files edited and the commands run, in order; the failures still open;
the commands held once already; the start context the session was given (fixed for the session:
the prompt cache holds); the ids of its handoff, revised in place at each idle. A subagent's
session is folded into its parent's by the plugin (it names the parent's id).

And what a run of a command teaches the project: a failure is stored only when it is a mistake
(kg_brain/surfaces/plugin_runs.py); the last outcome of each command that failed (`CommandRun`,
by the plugin's command key) decides what a later session holds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from kg_brain.base.clock import Clock
from kg_brain.store import plugin as statements
from kg_brain.store.db import Database

LIMITS = {"requests": 30, "edited": 30, "events": 120, "ran": 300, "held": 300}
FAILED_COMMANDS = 100
# The agent's words that say what fixed a failure (its other words change nothing).
_SAYS_FIX = re.compile(r"\b(fix|fixed|fixes|fixing|caused by|because|the problem was|resolved)\b",
                       re.IGNORECASE)
@dataclass
class Failure:
    """A failure still open in the session: its mistake, spelling, error line and the index of
    its run in the session's events."""

    zk_id: str
    command: str
    error: str
    at: int


@dataclass
class SessionRecord:
    session_id: str
    project: str
    requests: list[str] = field(default_factory=list)
    edited: list[str] = field(default_factory=list)
    events: list[str] = field(default_factory=list)  # "edited X", "ran `y` (exit n)", "said ..."
    ran: list[str] = field(default_factory=list)  # command keys run: their outcome is known
    held: list[str] = field(default_factory=list)  # command keys held once already
    failures: dict[str, Failure] = field(default_factory=dict)
    start_text: str | None = None
    start_ids: list[str] = field(default_factory=list)
    summary_zk_id: str | None = None
    thread_zk_id: str | None = None

    def merge(self, body: dict[str, Any]) -> None:
        """What the plugin saw since it last reported (lists of strings, already checked)."""
        for name, limit in LIMITS.items():
            added = [v for v in body.get(name) or [] if isinstance(v, str)]
            if name in ("edited", "ran", "held"):
                added = [v for v in added if v not in getattr(self, name)]
            values = getattr(self, name) + added
            dropped = max(len(values) - limit, 0)
            setattr(self, name, values[dropped:])
            if name == "events" and dropped:
                for failure in self.failures.values():
                    failure.at = max(failure.at - dropped, -1)

    def commands(self) -> list[str]:
        return [e[len("ran "):] for e in self.events if e.startswith("ran ")]

    def between(self, failure: Failure) -> list[str]:
        """What happened after the failure and before the run that passed (the last event)."""
        return self.events[failure.at + 1:-1]

    def changed(self, failure: Failure) -> bool:
        """Whether anything that can fix a failure happened since it: a file edited, another
        command run, or the agent saying what fixed it."""
        return any(not e.startswith("said: ") or _SAYS_FIX.search(e)
                   for e in self.between(failure))

    def state(self) -> dict[str, Any]:
        """The record as properties; a field not set yet is left out (never erases a value a
        concurrent save wrote); the start context's ids are left out with its text, being saved
        together."""
        keys = list(self.failures)
        state = {"requests": self.requests, "edited": self.edited, "events": self.events,
                 "ran": self.ran, "held": self.held, "fail_keys": keys,
                 "fail_ids": [self.failures[k].zk_id for k in keys],
                 "fail_commands": [self.failures[k].command for k in keys],
                 "fail_errors": [self.failures[k].error for k in keys],
                 "fail_at": [self.failures[k].at for k in keys],
                 "start_text": self.start_text,
                 "start_ids": None if self.start_text is None else self.start_ids,
                 "summary_zk_id": self.summary_zk_id, "thread_zk_id": self.thread_zk_id}
        return {k: v for k, v in state.items() if v is not None}

    @classmethod
    def of(cls, session_id: str, project: str, state: dict[str, Any] | None) -> SessionRecord:
        s = state or {}
        failures = {k: Failure(i, c, e, a) for k, i, c, e, a in zip(
            s.get("fail_keys") or [], s.get("fail_ids") or [], s.get("fail_commands") or [],
            s.get("fail_errors") or [], s.get("fail_at") or [], strict=False)}
        return cls(session_id=session_id, project=project,
                   **{name: list(s.get(name) or []) for name in LIMITS},
                   failures=failures, start_text=s.get("start_text"),
                   start_ids=list(s.get("start_ids") or []),
                   summary_zk_id=s.get("summary_zk_id"), thread_zk_id=s.get("thread_zk_id"))


class PluginSessions:
    """Loads and saves session records; records each failed command's last outcome."""

    def __init__(self, db: Database, clock: Clock) -> None:
        self.db = db
        self.clock = clock

    def load(self, session_id: str, project: str) -> SessionRecord:
        row = statements.session_state(self.db, session_id=session_id)
        return SessionRecord.of(session_id, project, row["state"] if row else None)

    def save(self, record: SessionRecord, fields: tuple[str, ...] = ()) -> None:
        """The record, or only its `fields` (the others as stored: a concurrent save of the
        session keeps what it wrote)."""
        state = record.state()
        if fields:
            state = {k: v for k, v in state.items() if k in fields}
        statements.save_session(self.db, session_id=record.session_id, project=record.project,
                                state=state, now=self.clock())

    def ran(self, project: str, key: str, command: str, mistake: str | None) -> None:
        """The command's last run: failed with the `mistake` stored, or passed (None)."""
        statements.record_command_run(self.db, project=project, key=key, command=command,
                                      outcome="failed" if mistake else "passed",
                                      mistake=mistake, now=self.clock())

    def failed(self, project: str) -> list[statements.FailedCommand]:
        return statements.failed_commands(self.db, project=project, limit=FAILED_COMMANDS)
