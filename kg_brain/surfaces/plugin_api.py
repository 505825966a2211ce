"""The OpenCode plugin's endpoint on the shared HTTP service: `POST /plugin/<action>` with a JSON
body, answering JSON.

Why not MCP JSON-RPC: a plugin hook runs inside a model call, and over streamable HTTP each call
needs an MCP session (initialize, its id, an SSE answer) and a `roots/list` round trip before the
service knows the project. Here one request carries the workspace folder, which names the project
by the same rule as an MCP root (kg_brain/surfaces/workspace.py), its `session_id` the OpenCode
session (a subagent's: its parent's) whose record it reads and brings up to date
(kg_brain/surfaces/plugin_session.py) and whose notes it writes
(kg_brain/surfaces/client_session.py), and the answer is text ready to inject. Every note is written
by the same tool method an MCP client calls (kg_brain/surfaces/tools/; recall calls the search
beneath search_memory, without its access stamp), so redaction, validation and budgets are the
tools' own; the routes sit behind the service's bearer check.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from threading import Thread
from typing import Any

import anyio
from fastmcp import FastMCP
from starlette.requests import Request
from starlette.responses import JSONResponse

from kg_brain.base import validate
from kg_brain.base.errors import BrainError, InvalidInput, StoreUnavailable
from kg_brain.base.vocab import NoteKind
from kg_brain.enrichment.llm import SessionDigest
from kg_brain.shapes.models import Hit
from kg_brain.surfaces.client_session import within
from kg_brain.surfaces.plugin import RECALL_BUDGET_TOKENS
from kg_brain.surfaces.plugin_runs import SCAN_LIMIT, judge, plain
from kg_brain.surfaces.plugin_session import Failure, PluginSessions, SessionRecord
from kg_brain.surfaces.plugin_text import (
    failure_text,
    fix_text,
    matching_lines,
    one_line,
    render_recall,
    render_start,
    render_warning,
)
from kg_brain.surfaces.project import claimer
from kg_brain.surfaces.tools import BrainTools
from kg_brain.surfaces.workspace import Identities, Identity
from kg_brain.text.redact.gate import gate

log = logging.getLogger(__name__)
PLUGIN_PATH = "/plugin/{action}"
DEFAULT_BUDGET_TOKENS = 2_000
RECALL_NOTES = 3  # a few previews: the model recalls the ones it needs
MAX_SHOWN = 500
MAX_QUERY = 2_000
MAX_OUTPUT_CHARS = 2_000
MAX_LIST = 30
MAX_EVENTS = 60
WRITES = frozenset({"failure", "passed", "close", "remember", "held"})  # store text
Body = dict[str, Any]


def _text(body: Body, key: str, limit: int = MAX_OUTPUT_CHARS) -> str:
    value = body.get(key, "")
    if not isinstance(value, str):
        raise InvalidInput(f"'{key}' must be a string")
    return value[-limit:]


def _texts(body: Body, key: str, most: int = MAX_LIST, width: int = 300) -> list[str]:
    value = body.get(key) or []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InvalidInput(f"'{key}' must be a list of strings")
    return [v[:width] for v in value[-most:]]


def _budget(body: Body, default: int) -> int:
    budget = body.get("budget_tokens", default)
    if not isinstance(budget, int) or isinstance(budget, bool) or budget < 50:
        raise InvalidInput("'budget_tokens' must be an integer of at least 50")
    return budget


def _workspace(body: Body, identities: Identities) -> Identity:
    folder = body.get("directory")
    if not isinstance(folder, str) or not folder.strip():
        raise InvalidInput("'directory' (the workspace folder) is required")
    identity = identities.of(Path(folder))
    if identity is None:
        raise InvalidInput(f"no project can be named after {folder!r}")
    return identity


def _delta(body: Body) -> Body:
    """What the plugin saw since it last reported, checked."""
    return {"requests": _texts(body, "requests"), "edited": _texts(body, "edited"),
            "events": _texts(body, "events", MAX_EVENTS),
            "ran": _texts(body, "ran", width=2_000), "held": _texts(body, "held", width=2_000)}


class PluginActions:
    """One method per action, each a tool call with the plugin's arguments, reading and bringing
    up to date the OpenCode session's record."""

    def __init__(self, tools: BrainTools) -> None:
        self.tools = tools
        brain = tools.brain
        self.sessions = PluginSessions(brain.db, brain.deps.clock)
        self.identities = Identities()

    def _project(self, body: Body) -> str:
        """The project of the workspace folder the body names, by the rule of an MCP root."""
        return claimer(self.tools.brain.projects)(_workspace(body, self.identities))

    def hidden(self, body: Body) -> Body:
        """A write's body with its secrets hidden as sent (or refused, SECRETS_MODE=reject),
        before any of it is cut to size or put on one line: the tools hide them again, but a
        secret cut in two or a key block flattened may no longer be recognised."""
        cleaned, _ = gate({k: v for k, v in body.items() if k != "directory"},
                          self.tools.brain.settings.secrets_mode)
        return body | cleaned

    def record(self, body: Body, project: str) -> SessionRecord:
        """The session's record with what the plugin reports since its last call merged in; a
        call naming no session gets a record of its own, never saved."""
        session = validate.session_id(body.get("session_id"))
        record = (self.sessions.load(session, project) if session
                  else SessionRecord(session_id="", project=project))
        record.merge(_delta(body))
        return record

    def save(self, record: SessionRecord) -> None:
        if record.session_id:
            self.sessions.save(record)

    def start(self, body: Body) -> Body:
        """The start context, fixed for the session (the first call's, every later call of the
        session gets it again: the prompt cache holds); the commands whose last run failed (a
        warning where a fix is known: the plugin holds such a command once); the session's open
        failures (a later run that passes resolves them). It reports nothing: the record is
        read, and only the start context is written to it."""
        project = self._project(body)
        session = validate.session_id(body.get("session_id"))
        record = (self.sessions.load(session, project) if session
                  else SessionRecord(session_id="", project=project))
        if record.start_text is None:
            ctx = self.tools.get_session_context(project)
            record.start_text = render_start(ctx, _budget(body, DEFAULT_BUDGET_TOKENS))
            shown = [h.zk_id for h in (ctx.last_session, ctx.open_thread) if h is not None]
            record.start_ids = [i for i in shown if i in record.start_text]  # bodies shown
            if record.session_id:  # kept after answering: the model call waits for no write
                Thread(target=self.sessions.save, args=(record, ("start_text", "start_ids")),
                       daemon=True).start()
        seen = set(record.ran) | set(record.held)
        return {"project": project, "text": record.start_text, "ids": record.start_ids,
                "known": {k: w for k, w in self.known_failures(project).items() if k not in seen},
                "open": {k: f.zk_id for k, f in record.failures.items()}}

    def recall(self, body: Body) -> Body:
        """The few notes relevant to a user message (search_memory, each hit relevant on its
        own: Search.relevant), leaving out those the session has `shown` already and its own
        handoff. Other sessions' handoffs are searched too (what a user said in passing is kept
        there), each shown by its lines that match the message. An automatic read, not a use:
        no access stamp."""
        budget, message = _budget(body, RECALL_BUDGET_TOKENS), _text(body, "text", MAX_QUERY)
        shown = body.get("shown") or []
        if not isinstance(shown, list) or not all(isinstance(i, str) for i in shown):
            raise InvalidInput("'shown' must be a list of note ids")
        project = self._project(body)
        if not message.strip():
            return {"project": project, "text": "", "ids": []}
        skip = set(shown[-MAX_SHOWN:])
        session = validate.session_id(body.get("session_id"))
        if session:  # its own handoff holds this session's messages: never recalled to it
            record = self.sessions.load(session, project)
            skip |= {record.summary_zk_id, record.thread_zk_id} - {None}
        search = self.tools.brain.search
        found = search.search_memory(message, project, min(100, RECALL_NOTES + len(skip) + 1),
                                     include_contextual=True, stamp=False)
        hits = [h for h in found if search.relevant(h) and h.zk_id not in skip
                and h.note_kind != NoteKind.OPEN_THREAD]  # its summary says as much
        hits = self.handoff_lines(hits[:RECALL_NOTES], message)
        text = render_recall(hits, budget)
        # a handoff shows only the lines of this message: another message may want others
        return {"project": project, "text": text, "ids": [
            h.zk_id for h in hits if h.zk_id in text and h.note_kind != NoteKind.SESSION_SUMMARY]}

    def handoff_lines(self, hits: list[Hit], message: str) -> list[Hit]:
        """Hits with a handoff's preview made of its lines that share the most words with the
        message (a handoff lists a whole session: its first lines seldom answer the message)."""
        handoffs = {h.zk_id for h in hits if h.note_kind == NoteKind.SESSION_SUMMARY}
        if not handoffs:
            return hits
        full = {n.zk_id: n.content for n in self.tools.brain.reader.found(sorted(handoffs))}
        return [h.model_copy(update={"preview": matching_lines(full[h.zk_id], message)})
                if h.zk_id in full else h for h in hits]

    def known_failures(self, project: str) -> dict[str, str]:
        """The commands (by the plugin's key) whose last run in the project failed with an
        error: each with a warning naming the known fix, or "" when no fix is known (never
        held: a hold would teach nothing). Read without an access stamp."""
        failed = self.sessions.failed(project)
        reader = self.tools.brain.reader
        mistakes = {n.zk_id: n for n in reader.found(
            sorted({m for row in failed for m in row["mistakes"] or []}))}
        fixes_of = {m.zk_id: [k.zk_id for k in m.links if k.type == "FIXES" and
                              k.direction == "in"] for m in mistakes.values()}
        fixes = {n.zk_id: n for n in reader.found(
            sorted({f for found in fixes_of.values() for f in found}))
            if n.memory_type != "archived"}
        known: dict[str, str] = {}
        for row in failed:
            ids = [m for m in row["mistakes"] or [] if m in mistakes]
            found = [fixes[f] for m in reversed(ids) for f in fixes_of[m] if f in fixes]
            known[row["key"]] = render_warning(row["command"], mistakes[ids[-1]], found) \
                if ids and found else ""
        return known

    def failure(self, body: Body) -> Body:
        """A run that exited non-zero: stored as a mistake only when it is one (its output shows
        an error, or it was killed: kg_brain/surfaces/plugin_runs.py); then it is open in the
        session until a run of the same command passes, and the command's last outcome in the
        project is a failure."""
        project = self._project(body)
        record = self.record(body, project)
        command, output = _text(body, "command", 1_000), plain(_text(body, "output", SCAN_LIMIT))
        key = _text(body, "key", 2_000) or one_line(command)
        verdict = judge(command, body.get("exit"), output)
        if not verdict.mistake:
            self.save(record)
            return {"project": project, "zk_id": None, "stored": False}
        recorded = self.tools.record_failure(
            failure_text(command, body.get("exit"), output, verdict.headline), project,
            verdict.headline)
        record.failures[key] = Failure(recorded.zk_id, one_line(command)[:300],
                                       verdict.headline[:300], len(record.events) - 1)
        self.sessions.ran(project, key, one_line(command), recorded.zk_id)
        self.save(record)
        return {"project": project, "zk_id": recorded.zk_id, "stored": True,
                "seen_before": [m.zk_id for m in recorded.seen_before]}

    def passed(self, body: Body) -> Body:
        """A run that passed, of a command that failed before (in this session or the last time
        it ran in the project): its last outcome is a pass (never held again). A failure of this
        session is resolved: with a fix note linked FIXES when a file was edited, another command
        run or the agent said what fixed it in between (the fix is what happened), without one
        when nothing was (it passed again)."""
        project = self._project(body)
        record = self.record(body, project)
        command = one_line(_text(body, "command", 1_000))
        key = _text(body, "key", 2_000) or command
        failed = record.failures.pop(key, None)
        fix = None
        if failed is not None and record.changed(failed):
            fix = self.tools.record_resolution(
                failed.zk_id, fix_text(command, failed.command, failed.error,
                                      record.between(failed))).fix_zk_id
        self.sessions.ran(project, key, command, None)
        self.save(record)
        return {"project": project, "fix_zk_id": fix}

    def held(self, body: Body) -> Body:
        """The plugin held a command (its key in `held`): never again in this session."""
        project = self._project(body)
        self.save(self.record(body, project))
        return {"project": project}

    def close(self, body: Body) -> Body:
        """The session's handoff, brought up to date at each idle: written once, then revised in
        place (a revision), covering everything the session did in every process that served
        it; the faithful extract or, with an LLM configured, the model's summary of it (the
        extract again when the model fails). A session with no request of the user (only
        commands such as /remember) gets none."""
        project = self._project(body)
        record = self.record(body, project)
        if not record.requests:
            self.save(record)
            return {"project": project, "summary_zk_id": None, "revised": False}
        handoff = self.tools.brain.deps.enricher.summarize_session(
            self.extract(record), record.requests)
        parts = (project, handoff.objective, handoff.completed, handoff.blockers,
                 handoff.next_steps, record.edited or None)
        closed = None
        if record.summary_zk_id and record.thread_zk_id:
            closed = self.tools.brain.sessions.revise(record.summary_zk_id, record.thread_zk_id,
                                                      *parts)
        revised = closed is not None
        if closed is None:
            closed = self.tools.close_session(*parts[1:], project=project)
        record.summary_zk_id, record.thread_zk_id = closed.summary_zk_id, \
            closed.open_thread_zk_id
        self.save(record)
        return {"project": project, "summary_zk_id": closed.summary_zk_id, "revised": revised}

    @staticmethod
    def extract(record: SessionRecord) -> SessionDigest:
        """What the session did, as it was: a failure fixed in the session is a command run,
        never a blocker."""
        failing = [f"`{f.command}` still fails ({f.zk_id}: {f.error})"
                   for f in record.failures.values()]
        commands = record.commands()[-MAX_LIST:]
        later = record.requests[1:] if failing else record.requests[1:-1]  # the last: next
        return SessionDigest(
            objective=record.requests[0],
            completed=[f"asked: {r}" for r in later] + [f"edited {f}" for f in record.edited]
            + [f"ran {c}" for c in commands] or ["no edits or commands"], blockers=failing,
            next_steps=[f"make `{f.command}` pass" for f in record.failures.values()] or
            [f"follow up on: {record.requests[-1]}"])

    def remember(self, body: Body) -> Body:
        saved = self.tools.add_memory(_text(body, "text", 20_000), self._project(body))
        return {"project": saved.project, "zk_id": saved.zk_id, "title": saved.title,
                "deduplicated": saved.deduplicated}

    def dream(self, body: Body) -> Body:
        """Without `apply`: the clusters a consolidation would merge; with it, merge those."""
        chosen = _texts(body, "apply")
        report = self.tools.consolidate_clusters(self._project(body), dry_run=not chosen,
                                                 selected_cluster_ids=chosen or None)
        return report.model_dump(mode="json")


def _status(exc: BrainError) -> int:
    return 503 if isinstance(exc, StoreUnavailable) else 400


def route(actions: PluginActions) -> Callable[[Request], Awaitable[JSONResponse]]:
    handlers: dict[str, Callable[[Body], Body]] = {
        "start": actions.start, "failure": actions.failure, "passed": actions.passed,
        "held": actions.held, "close": actions.close, "remember": actions.remember,
        "dream": actions.dream, "recall": actions.recall}

    async def handle(request: Request) -> JSONResponse:
        handler = handlers.get(request.path_params["action"])
        if handler is None:
            return JSONResponse({"error": f"no such action; one of {sorted(handlers)}"}, 404)
        try:
            body = json.loads(await request.body() or b"{}")
        except ValueError:
            return JSONResponse({"error": "the body is not JSON"}, 400)
        if not isinstance(body, dict):
            return JSONResponse({"error": "the body must be a JSON object"}, 400)
        writes = request.path_params["action"] in WRITES
        try:  # the OpenCode session's notes form its own session order
            with within(validate.session_id(body.get("session_id"))):
                return JSONResponse(await anyio.to_thread.run_sync(
                    lambda: handler(actions.hidden(body) if writes else body)))
        except BrainError as exc:
            log.info("plugin %s: %s", request.path_params["action"], exc)
            return JSONResponse({"error": str(exc)}, _status(exc))

    return handle


def register(mcp: FastMCP, tools: BrainTools) -> None:
    mcp.custom_route(PLUGIN_PATH, methods=["POST"])(route(PluginActions(tools)))
