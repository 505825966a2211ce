"""The OpenCode plugin's endpoint on the shared HTTP service: `POST /plugin/<action>` with a JSON
body, answering JSON.

Why not MCP JSON-RPC: a plugin hook runs inside a model call, and over streamable HTTP each call
needs an MCP session (initialize, its id, an SSE answer) and a `roots/list` round trip before the
service knows the project. Here one request carries the workspace folder, which names the project
by the same rule as an MCP root (kg_brain/workspace.py), its `session_id` the OpenCode session
whose notes it writes (kg_brain/client_session.py), and the answer is text ready to inject.
Every action calls the same tool method an MCP client calls (kg_brain/tools/; recall calls the
search beneath search_memory, without its access stamp), so redaction, validation and budgets
are the tools' own; the routes sit behind the service's bearer check.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from fastmcp import FastMCP
from starlette.requests import Request
from starlette.responses import JSONResponse

from kg_brain import validate
from kg_brain.client_session import within
from kg_brain.errors import BrainError, InvalidInput, StoreUnavailable
from kg_brain.llm import SessionDigest
from kg_brain.models import Hit, NoteView
from kg_brain.plugin import RECALL_BUDGET_TOKENS
from kg_brain.project import claimer
from kg_brain.redact.gate import gate
from kg_brain.sessions import CHARS_PER_TOKEN, SessionContext
from kg_brain.tools import BrainTools
from kg_brain.workspace import Identities, Identity

log = logging.getLogger(__name__)
PLUGIN_PATH = "/plugin/{action}"
DEFAULT_BUDGET_TOKENS = 2_000
RECALL_NOTES = 3  # a few previews: the model recalls the ones it needs
RECALL_PREVIEW = 240
MAX_SHOWN = 500
MAX_QUERY = 2_000
MAX_OUTPUT_CHARS = 2_000
MAX_LIST = 30
KNOWN_FAILURES = 100
FAILED = "Shell command failed"
COMMAND_LINE = "$ "
# An error's own line first ("ImportError: ...", "fatal: ..."), a runner's tally ("1 failed")
# only when there is none: a tally alone would make every failing test run the same mistake.
_ERROR_LINES = (re.compile(r"error|exception|not found|denied|cannot|fatal|no such",
                           re.IGNORECASE), re.compile(r"fail", re.IGNORECASE))
_SPACE = re.compile(r"\s+")
WRITES = frozenset({"failure", "resolution", "close", "remember"})  # actions that store text
Body = dict[str, Any]


def one_line(command: str) -> str:
    """A command as stored and shown; which runs are equivalent is the plugin's `commandKey`."""
    return _SPACE.sub(" ", command).strip()


def _text(body: Body, key: str, limit: int = MAX_OUTPUT_CHARS) -> str:
    value = body.get(key, "")
    if not isinstance(value, str):
        raise InvalidInput(f"'{key}' must be a string")
    return value[-limit:]


def _texts(body: Body, key: str) -> list[str]:
    value = body.get(key) or []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InvalidInput(f"'{key}' must be a list of strings")
    return [v[:300] for v in value[-MAX_LIST:]]


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


def error_signature(output: str) -> str:
    """The output's most telling line: the last one naming an error, else the last line."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    for pattern in _ERROR_LINES:
        telling = [line for line in lines if pattern.search(line)]
        if telling:
            return telling[-1][:500]
    return (lines or ["(no output)"])[-1][:500]


def render_start(ctx: SessionContext, budget_tokens: int) -> str:
    """The session's start context as a system-prompt section, whole lines within the budget."""
    lines = [f"# Long-term memory (kg-brain, project {ctx.project})",
             "Notes by id: call kg-brain recall(zk_ids) for the full text."]
    for label, handoff in (("Last session's handoff", ctx.last_session),
                           ("Open thread: continue here", ctx.open_thread)):
        if handoff is not None:
            lines += [f"## {label} ({handoff.zk_id})", handoff.content]
    for label, heads in (("Pinned", ctx.pinned), ("Project context", ctx.project_context),
                         ("Active decisions", ctx.decisions)):
        if heads:
            lines += [f"## {label}"] + [f"- {h.zk_id} {h.title}" for h in heads]
    if ctx.mistakes:
        lines.append("## Past mistakes: do not repeat them")
        for m in ctx.mistakes:
            fixes = "; ".join(f"fix {f.zk_id} {f.title}" for f in m.fixes) or "no fix yet"
            lines.append(f"- {m.zk_id} {m.title} ({fixes})")
    return cut_lines(lines, budget_tokens * CHARS_PER_TOKEN) if len(lines) > 2 else ""


def render_recall(hits: list[Hit], budget_tokens: int) -> str:
    """Short previews of the notes relevant to a user message, whole lines within the budget;
    empty when not one note fits."""
    lines = ["# kg-brain: stored notes relevant to this message",
             "Only previews: call kg-brain recall(zk_ids) for a note's full text."]
    for hit in hits:
        preview = _SPACE.sub(" ", hit.preview).strip()
        if len(preview) > RECALL_PREVIEW:
            preview = preview[:RECALL_PREVIEW].rsplit(" ", 1)[0] + " ..."
        lines.append(f"- {hit.zk_id} ({hit.note_kind}, relevance {hit.relevance:.2f}): {preview}")
    text = cut_lines(lines, budget_tokens * CHARS_PER_TOKEN)
    return text if text.count("\n") >= 2 else ""


def cut_lines(lines: list[str], limit: int) -> str:
    kept: list[str] = []
    used = 0
    for line in lines:
        if used + len(line) + 1 > limit:
            break
        kept.append(line)
        used += len(line) + 1
    return "\n".join(kept)


def render_warning(command: str, failure: NoteView, fixes: list[NoteView]) -> str:
    error = failure.content.strip().splitlines()[-1][:200]
    parts = [(f"kg-brain: `{one_line(command)[:200]}` failed before in this project "
              f"({failure.zk_id}: {error}).")]
    parts += [f"Known fix {f.zk_id}: {f.content[:300]}" for f in fixes[:2]]
    return "\n".join(parts if fixes else [*parts, "No fix was recorded."])


class PluginActions:
    """One method per action, each a tool call with the plugin's arguments."""

    def __init__(self, tools: BrainTools) -> None:
        self.tools = tools
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

    def start(self, body: Body) -> Body:
        budget = _budget(body, DEFAULT_BUDGET_TOKENS)
        ctx = self.tools.get_session_context(self._project(body))
        text = render_start(ctx, budget)
        ids = [h.zk_id for h in (ctx.last_session, ctx.open_thread) if h is not None]
        ids += [h.zk_id for group in (ctx.pinned, ctx.project_context, ctx.decisions,
                                      ctx.mistakes) for h in group]
        return {"project": ctx.project, "text": text, "ids": [i for i in ids if i in text],
                "known": self.known_failures(ctx.project)}

    def recall(self, body: Body) -> Body:
        """The few notes relevant to a user message (search_memory, each hit relevant on its
        own: Search.relevant), leaving out those the session has `shown` already. An automatic
        read, not a use: no access stamp."""
        budget, message = _budget(body, RECALL_BUDGET_TOKENS), _text(body, "text", MAX_QUERY)
        shown = body.get("shown") or []
        if not isinstance(shown, list) or not all(isinstance(i, str) for i in shown):
            raise InvalidInput("'shown' must be a list of note ids")
        project = self._project(body)
        if not message.strip():
            return {"project": project, "text": "", "ids": []}
        skip = set(shown[-MAX_SHOWN:])
        search = self.tools.brain.search
        found = search.search_memory(message, project, min(100, RECALL_NOTES + len(skip)),
                                     stamp=False)
        hits = [h for h in found if search.relevant(h) and h.zk_id not in skip]
        text = render_recall(hits[:RECALL_NOTES], budget)
        return {"project": project, "text": text,
                "ids": [h.zk_id for h in hits[:RECALL_NOTES] if h.zk_id in text]}

    def known_failures(self, project: str) -> dict[str, str]:
        """The commands that failed in this project (the newest mistakes the plugin recorded),
        each with its warning and known fixes: the plugin matches a bash run against them
        locally, so a command costs no request and no embedding before it runs."""
        page = self.tools.list_notes(project, note_kinds=["mistake"], limit=KNOWN_FAILURES)
        ids = [n.zk_id for n in page.notes if n.preview.startswith(FAILED)]
        if not ids:
            return {}
        failures = self.tools.recall(ids).notes
        fix_ids = {f.zk_id: [k.zk_id for k in f.links if k.type == "FIXES" and k.direction == "in"]
                   for f in failures}
        wanted = sorted({i for found in fix_ids.values() for i in found})
        fixes = {n.zk_id: n for n in self.tools.recall(wanted).notes} if wanted else {}
        known: dict[str, str] = {}
        for failure in failures:
            command = failure.content.splitlines()[0].split(COMMAND_LINE, 1)[-1]
            known.setdefault(one_line(command), render_warning(
                command, failure, [fixes[i] for i in fix_ids[failure.zk_id] if i in fixes]))
        return known

    def failure(self, body: Body) -> Body:
        command, output = _text(body, "command", 1_000), _text(body, "output")
        status = body.get("exit")
        content = f"{FAILED} (exit {status}): {COMMAND_LINE}{one_line(command)}" \
                  f"\n{output.strip()}"
        recorded = self.tools.record_failure(content, self._project(body), error_signature(output))
        return {"project": recorded.project, "zk_id": recorded.zk_id,
                "seen_before": [m.zk_id for m in recorded.seen_before]}

    def resolution(self, body: Body) -> Body:
        command = one_line(_text(body, "command", 1_000))
        failed = one_line(_text(body, "failed_command", 1_000)) or command
        between = _texts(body, "between")
        after = "it" if failed == command else f"`{failed}`"
        fix = (f"`{command}` succeeds (exit 0) after {after} had failed. In between: "
               + ("; ".join(between) if between else "nothing else was run or edited") + ".")
        done = self.tools.record_resolution(_text(body, "failure_zk_id", 40), fix)
        return {"project": done.project, "fix_zk_id": done.fix_zk_id}

    def close(self, body: Body) -> Body:
        """The session's handoff: the faithful extract of what it did, or, with an LLM
        configured, the model's summary of it (the extract again when the model fails)."""
        requests, edited = _texts(body, "requests"), _texts(body, "edited")
        commands, failing = _texts(body, "commands"), _texts(body, "open_failures")
        extract = SessionDigest(
            objective=requests[0] if requests else "Work in this workspace",
            completed=[f"edited {f}" for f in edited] + [f"ran {c}" for c in commands] or
            ["no edits or commands"], blockers=[f"{f} still fails" for f in failing],
            next_steps=[f"make {f} pass" for f in failing] or
            ([f"follow up on: {requests[-1]}"] if requests else []))
        handoff = self.tools.brain.deps.enricher.summarize_session(extract, requests)
        closed = self.tools.close_session(handoff.objective, handoff.completed, handoff.blockers,
                                          handoff.next_steps, edited or None, self._project(body))
        return {"project": closed.project, "summary_zk_id": closed.summary_zk_id}

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
        "start": actions.start, "failure": actions.failure, "resolution": actions.resolution,
        "close": actions.close, "remember": actions.remember,
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
