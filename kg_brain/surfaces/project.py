"""Project identity: which project a call belongs to when the agent does not say.

Order: the `project` argument; the client's workspace (its first MCP root, named by the identity
of the repository that holds it, kg_brain/surfaces/workspace.py); what the HTTP request names (the
URL's `repo` and `name`, or a project key in `project`, or the X-KG-Brain-* headers: what `kg-brain
wire --url` writes and the stdio relay sends, for clients of the 2026-07-28 protocol, which has
no roots); for a stdio server, the workspace it was spawned in; KG_BRAIN_PROJECT; the repository
of the server's working directory; else "general". An identity becomes the project key its
notes are filed under through kg_brain/domain/projects.py. The roots come from the client, so one
HTTP server serves every workspace under its own project, and a stdio server follows the client's
workspace even when spawned elsewhere. Every tool response names the project it used, so a note
never lands in the wrong project unnoticed.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import anyio
from fastmcp import Context
from fastmcp.exceptions import ToolError
from fastmcp.server.dependencies import get_http_request
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from mcp.server.session import ServerSession
from mcp.shared.exceptions import MCPError
from mcp.types import ListRootsRequest, ListRootsResult, Root
from pydantic import ValidationError

from kg_brain.base import validate
from kg_brain.base.errors import InvalidInput
from kg_brain.base.settings import Settings
from kg_brain.domain.projects import Projects
from kg_brain.surfaces.workspace import (
    IDENTITY,
    NAME_HEADER,
    NAME_PARAM,
    PROJECT_HEADER,
    PROJECT_PARAM,
    REPO_HEADER,
    REPO_PARAM,
    Identity,
    client_identity,
    server_identity,
    slug,
    workspace_identity,
)

log = logging.getLogger(__name__)
ROOTS_TIMEOUT_S = 3.0
REMEMBERED_SESSIONS = 4096
Named = str | Identity  # a project key, or a workspace identity that stands for one
Claim = Callable[[Identity], str]
_client_project: ContextVar[Named | None] = ContextVar("kg_brain_client_project", default=None)


def project_from_roots(roots: Sequence[Root]) -> Identity | None:
    """The first root's identity (roots are `file://` URIs by the protocol's schema)."""
    if not roots:
        return None
    return workspace_identity(Path(unquote(urlparse(str(roots[0].uri)).path)))


def claimer(projects: Projects) -> Claim:
    """An identity's project key, through the Project nodes."""
    return lambda identity: projects.claim(identity.id, identity.name, identity.before)


def resolve_project(settings: Settings, given: str | None, claim: Claim,
                    cwd: Path | None = None) -> str:
    """The caller's project if given (validated), else the client's, else the derived default."""
    if given is not None and given.strip():
        return validate.project(given)
    named = _client_project.get() or server_identity(settings, cwd)
    return validate.project(named) if isinstance(named, str) else claim(named)


class ClientRoots(Middleware):
    """Asks each MCP session once for its roots and runs its tool calls with the project they
    name. Tools are sync code in worker threads; the context variable carries the answer there.
    A client without roots, or one that fails or is slow to answer, falls back silently."""

    def __init__(self) -> None:
        self.known: OrderedDict[str, Identity | None] = OrderedDict()

    async def on_call_tool(self, context: MiddlewareContext[Any], call_next: CallNext) -> Any:
        try:
            found = await self._session_project(context.fastmcp_context) or request_project()
        except InvalidInput as exc:
            raise ToolError(f"the project the request names: {exc}") from None
        token = _client_project.set(found)
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

    async def _session_project(self, ctx: Context | None) -> Identity | None:
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
    async def _ask(session: ServerSession) -> Identity | None:
        """The roots' identity, or None when the client cannot tell in time."""
        try:
            with anyio.fail_after(ROOTS_TIMEOUT_S):
                result = await session.send_request(ListRootsRequest(), ListRootsResult)
        except (MCPError, TimeoutError, ValidationError, anyio.BrokenResourceError,
                anyio.ClosedResourceError) as exc:
            log.info("client roots unavailable (%s); using the configured project", exc)
            return None
        log.debug("client roots: %s", [str(r.uri) for r in result.roots])
        return await anyio.to_thread.run_sync(project_from_roots, result.roots)


def request_project() -> Named | None:
    """The project key or workspace identity the HTTP request names (validated), or None (none
    named, or stdio)."""
    try:
        request = get_http_request()
    except RuntimeError:
        return None
    query, headers = request.query_params, request.headers
    named = query.get(PROJECT_PARAM) or headers.get(PROJECT_HEADER)
    if named:
        return validate.project(named)
    repo = query.get(REPO_PARAM) or headers.get(REPO_HEADER)
    if not repo:
        return None
    if not IDENTITY.match(repo):
        raise InvalidInput(f"invalid workspace identity {repo[:80]!r}")
    name = slug(query.get(NAME_PARAM) or headers.get(NAME_HEADER) or "")
    return Identity(repo, validate.project(name or "project"))


class SpawnedIn(Middleware):
    """A stdio server runs in its client's workspace: a call whose client named no project
    (no roots) is for that workspace, named as the relay names it (outside git too), so a
    window gets the same project served in-process as through the shared service. Added after
    ClientRoots, so it runs inside it and sees what the client named."""

    def __init__(self, settings: Settings) -> None:
        self.named = client_identity(settings)

    async def on_call_tool(self, context: MiddlewareContext[Any], call_next: CallNext) -> Any:
        if _client_project.get() is not None:
            return await call_next(context)
        token = _client_project.set(self.named)
        try:
            return await call_next(context)
        finally:
            _client_project.reset(token)


def _answers_roots(session: ServerSession) -> bool:
    capabilities = session.client_capabilities
    return capabilities is not None and capabilities.roots is not None and \
        session.can_send_request
