"""Which client session a tool call comes from: the session order (FOLLOWS) joins the notes one
session writes, so two windows, or a window and the plugin, writing at once keep a chain each.

Order: the X-KG-Brain-Session header (the stdio relay sends one id per window process, which
outlives the MCP sessions it opens on a service that restarts); else the MCP session of an HTTP
request (its mcp-session-id, stored as a digest: the id is the key of a live session); a call
that comes by no HTTP request (stdio, a window served in-process) is from its process's one
client. An HTTP request of the stateless 2026-07-28 revision without the header names none, and
its notes follow nothing. The plugin's endpoint names the OpenCode session in its JSON body
(kg_brain/surfaces/plugin_api.py) and runs its tool calls `within` it.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from fastmcp.exceptions import ToolError
from fastmcp.server.dependencies import get_http_request
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext

from kg_brain.base import validate
from kg_brain.base.errors import InvalidInput
from kg_brain.surfaces.workspace import SESSION_HEADER

MCP_SESSION_HEADER = "mcp-session-id"
_client_session: ContextVar[str | None] = ContextVar("kg_brain_client_session", default=None)


def current() -> str | None:
    """The client session of the call being served, if it names one."""
    return _client_session.get()


@contextmanager
def within(session_id: str | None) -> Iterator[None]:
    """Calls made inside (worker threads included: they copy the context) come from
    `session_id`."""
    token = _client_session.set(session_id)
    try:
        yield
    finally:
        _client_session.reset(token)


class ClientSession(Middleware):
    """Runs each tool call within the session it comes from; a process serving a client
    without HTTP has one id for its life."""

    def __init__(self) -> None:
        self.process = f"process-{uuid.uuid4().hex}"

    async def on_call_tool(self, context: MiddlewareContext[Any], call_next: CallNext) -> Any:
        try:
            session = self.session()
        except InvalidInput as exc:
            raise ToolError(f"the session the request names: {exc}") from None
        with within(session):
            return await call_next(context)

    def session(self) -> str | None:
        try:
            request = get_http_request()
        except RuntimeError:
            return self.process
        named = validate.session_id(request.headers.get(SESSION_HEADER))
        if named:
            return named
        mcp = request.headers.get(MCP_SESSION_HEADER)
        return "mcp-" + hashlib.sha256(mcp.encode()).hexdigest()[:32] if mcp else None
