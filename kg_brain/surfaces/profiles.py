"""Tool profiles: which MCP tools a client is offered.

A client sends every listed tool's schema with every model request, so the default profile,
`core`, holds only what an agent uses every session: the AGENTS.md protocol's steps (open and
close the session, preflight, search, deep search, recall, add, the failure and its fix).
`full` adds curation (forget, list, edit, link, history), the inbox, the graph walk and
maintenance. The profile belongs to the client, not the process: one shared HTTP service serves
windows wired with different profiles, each request naming its own (the URL's `tools` parameter
or the X-KG-Brain-Tools header, what `kg-brain wire --tools` writes and the stdio relay sends);
a request naming none, and a stdio server, get KG_BRAIN_TOOLS (`kg-brain mcp --tools`).
The OpenCode plugin calls the service's plugin API, not MCP tools, so no profile limits it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fastmcp.exceptions import ToolError
from fastmcp.server.dependencies import get_http_request
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from fastmcp.tools.base import Tool
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS

from kg_brain.base.errors import InvalidInput
from kg_brain.base.settings import TOOL_PROFILES
from kg_brain.surfaces.workspace import TOOLS_HEADER, TOOLS_PARAM

CORE: tuple[str, ...] = (
    "open_session", "preflight_check", "search_memory", "deep_search", "recall", "add_memory",
    "record_failure", "record_resolution", "close_session",
)


def offered(profile: str, tool: str) -> bool:
    """Whether a client of `profile` is offered `tool` (`full`: every tool)."""
    return profile == "full" or tool in CORE


def request_profile() -> str | None:
    """The profile the HTTP request names, or None (none named, or stdio)."""
    try:
        request = get_http_request()
    except RuntimeError:
        return None
    named = request.query_params.get(TOOLS_PARAM) or request.headers.get(TOOLS_HEADER)
    if named is None:
        return None
    if named not in TOOL_PROFILES:
        raise InvalidInput(f"the tool profile the request names ({named[:40]!r}) is not one of "
                        f"{', '.join(TOOL_PROFILES)}; wire the client again with --tools core|full")
    return named


class ToolProfile(Middleware):
    """Lists the tools of the request's profile, and refuses a call to any other one with the
    way to get it, rather than the bare unknown-tool error."""

    def __init__(self, default: str) -> None:
        self.default = default

    async def on_list_tools(self, context: MiddlewareContext[Any],
                            call_next: CallNext[Any, Sequence[Tool]]) -> Sequence[Tool]:
        try:
            profile = request_profile() or self.default
        except InvalidInput as exc:
            raise MCPError(INVALID_PARAMS, str(exc)) from None
        return [tool for tool in await call_next(context) if offered(profile, tool.name)]

    async def on_call_tool(self, context: MiddlewareContext[Any], call_next: CallNext) -> Any:
        try:
            profile = request_profile() or self.default
        except InvalidInput as exc:
            raise ToolError(str(exc)) from None
        name = context.message.name
        if not offered(profile, name):
            raise ToolError(
                f"{name} is not offered to this client: it was wired with the '{profile}' tool "
                f"profile ({', '.join(CORE)}). To use {name}, wire it again with "
                "`kg-brain wire <client> --tools full` (or set KG_BRAIN_TOOLS=full).")
        return await call_next(context)
