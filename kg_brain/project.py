"""Project identity: which project a call belongs to when the agent does not say.

Order: the `project` argument; the client's workspace (its first MCP root, named after the git
root that holds it, else after the root folder itself); KG_BRAIN_PROJECT; the name of the git root
of the server's working directory; else "general". The roots come from the client, so one HTTP
server serves every workspace under its own project, and a stdio server follows the client's
workspace even when spawned elsewhere. Every tool response names the project it used, so a note
never lands in the wrong project unnoticed.
"""

from __future__ import annotations

import logging
import re
from collections import OrderedDict
from collections.abc import Sequence
from contextvars import ContextVar
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import anyio
from fastmcp import Context
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from mcp.server.session import ServerSession
from mcp.shared.exceptions import MCPError
from mcp.types import ListRootsRequest, ListRootsResult, Root
from pydantic import ValidationError

from kg_brain import validate
from kg_brain.settings import Settings

log = logging.getLogger(__name__)
DEFAULT_PROJECT = "general"
ROOTS_TIMEOUT_S = 3.0
REMEMBERED_SESSIONS = 4096
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_client_project: ContextVar[str | None] = ContextVar("kg_brain_client_project", default=None)


def git_root(start: Path) -> Path | None:
    """The nearest ancestor holding `.git` (a directory, or a file for worktrees)."""
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def slug(name: str) -> str | None:
    """A directory name made into a valid project name, or None if nothing usable is left."""
    cleaned = _UNSAFE.sub("-", name).strip("-._")[:64]
    return cleaned or None


def workspace_project(folder: Path) -> str | None:
    """The project a workspace folder stands for: its git root's name, else its own name.
    A folder that does not exist here (a remote client's path) is named as given."""
    root = git_root(folder)
    return slug((root or folder).name)


def project_from_roots(roots: Sequence[Root]) -> str | None:
    """The first root's project (roots are `file://` URIs by the protocol's schema)."""
    if not roots:
        return None
    return workspace_project(Path(unquote(urlparse(str(roots[0].uri)).path)))


def default_project(settings: Settings, cwd: Path | None = None) -> str:
    if settings.kg_brain_project:
        return validate.project(settings.kg_brain_project)
    root = git_root((cwd or Path.cwd()).resolve())
    return (slug(root.name) if root else None) or DEFAULT_PROJECT


def resolve_project(settings: Settings, given: str | None, cwd: Path | None = None) -> str:
    """The caller's project if given (validated), else the client's, else the derived default."""
    if given is not None and given.strip():
        return validate.project(given)
    return _client_project.get() or default_project(settings, cwd)


class ClientRoots(Middleware):
    """Asks each MCP session once for its roots and runs its tool calls with the project they
    name. Tools are sync code in worker threads; the context variable carries the answer there.
    A client without roots, or one that fails or is slow to answer, falls back silently."""

    def __init__(self) -> None:
        self.known: OrderedDict[str, str | None] = OrderedDict()

    async def on_call_tool(self, context: MiddlewareContext[Any], call_next: CallNext) -> Any:
        token = _client_project.set(await self._session_project(context.fastmcp_context))
        try:
            return await call_next(context)
        finally:
            _client_project.reset(token)

    async def on_notification(self, context: MiddlewareContext[Any], call_next: CallNext) -> Any:
        """The client's workspace changed: ask again on the session's next call."""
        ctx = context.fastmcp_context
        if context.method == "notifications/roots/list_changed" and ctx is not None:
            self.known.pop(ctx.session_id, None)
        return await call_next(context)

    async def _session_project(self, ctx: Context | None) -> str | None:
        """The session's remembered project, asking its roots on its first call. Sessions of
        the 2026-07-28 protocol have no channel for server requests (roots are deprecated
        there) and no lasting id, so they are neither asked nor remembered."""
        if ctx is None or ctx.request_context is None or not _answers_roots(ctx.session):
            return None
        key = ctx.session_id
        if key not in self.known:
            self.known[key] = await self._ask(ctx.session)
            while len(self.known) > REMEMBERED_SESSIONS:
                self.known.popitem(last=False)
        self.known.move_to_end(key)
        return self.known[key]

    @staticmethod
    async def _ask(session: ServerSession) -> str | None:
        """The roots' project, or None when the client cannot tell in time."""
        try:
            with anyio.fail_after(ROOTS_TIMEOUT_S):
                result = await session.send_request(ListRootsRequest(), ListRootsResult)
        except (MCPError, TimeoutError, ValidationError, anyio.BrokenResourceError,
                anyio.ClosedResourceError) as exc:
            log.info("client roots unavailable (%s); using the configured project", exc)
            return None
        log.debug("client roots: %s", [str(r.uri) for r in result.roots])
        return project_from_roots(result.roots)


def _answers_roots(session: ServerSession) -> bool:
    capabilities = session.client_capabilities
    return capabilities is not None and capabilities.roots is not None and \
        session.can_send_request
