"""The MCP surface: the seed's 18 tools, recall and capture_context, and the curation tools
(forget, list, edit, link, history), built over a lazy Brain; resources and prompts come from
kg_brain/surfaces/resources.py.

Each tool validates, calls one domain function and returns a Pydantic model naming the project it
used. Building the server touches neither Neo4j nor the embedding model, so `initialize` and
`tools/list` answer at once; the first tool call connects. Domain errors (kg_brain.base.errors)
become ToolError with the domain's message through one adapter (resources.domain_errors).
"""

from __future__ import annotations

from typing import Any

from fastmcp import FastMCP
from fastmcp.exceptions import ToolError, ValidationError
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from mcp.types import ToolAnnotations
from pydantic import ValidationError as PydanticValidationError

from kg_brain.root.app import Brain
from kg_brain.surfaces import resources
from kg_brain.surfaces.budget import AnswerBudget
from kg_brain.surfaces.client_session import ClientSession
from kg_brain.surfaces.profiles import ToolProfile
from kg_brain.surfaces.project import ClientRoots
from kg_brain.surfaces.tools.base import ADD, ARCHIVE, FORGET, LINK, READ, REWRITE, STAMP
from kg_brain.surfaces.tools.curation import CurationTools
from kg_brain.surfaces.tools.maintenance import MaintenanceTools
from kg_brain.surfaces.tools.notes import NoteTools
from kg_brain.surfaces.tools.search import SearchTools
from kg_brain.surfaces.tools.sessions import SessionTools

tool_errors = resources.domain_errors(ToolError)
INSTRUCTIONS = (
    "Long-term memory for this workspace. Start with open_session; before coding a task call "
    "preflight_check; search with search_memory (lookups) or deep_search (why/how questions), "
    "then recall(zk_ids) for full notes; store knowledge with add_memory; record_failure and "
    "record_resolution for errors and their fixes; end with close_session."
)


class ArgumentErrors(Middleware):
    """Arguments the tool's schema refuses, told in plain sentences: each wrong argument, what
    it should be and what was given, without the validation library's links."""

    async def on_call_tool(self, context: MiddlewareContext[Any], call_next: CallNext) -> Any:
        try:
            return await call_next(context)
        except ValidationError as exc:
            cause = exc.__cause__
            if not isinstance(cause, PydanticValidationError):
                raise
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}"
                + ("" if e["type"] == "missing_argument" else f" (got {e['input']!r:.60})")
                for e in cause.errors(include_url=False))
            raise ToolError(f"{context.message.name} was called with invalid arguments: "
                            f"{problems}. Correct them and call it again.") from None


class BrainTools(SessionTools, SearchTools, NoteTools, MaintenanceTools, CurationTools):
    """Every tool as a method over one Brain (each area in its module of kg_brain/surfaces/tools/);
    `build_server` registers them by name."""


TOOLS: dict[str, ToolAnnotations] = {
    "open_session": READ, "get_session_context": READ, "get_inbox": READ,
    "distill_to_permanent": ADD, "deep_search": STAMP, "search_memory": STAMP,
    "get_related": READ, "add_memory": ADD, "update_memory": REWRITE,
    "archive_stale_notes": ARCHIVE, "close_session": ADD, "brain_stats": READ,
    "record_failure": ADD, "record_resolution": ADD, "preflight_check": READ,
    "restore_note": ADD, "decay_report": READ, "consolidate_clusters": REWRITE,
    "recall": READ, "capture_context": ADD, "forget_note": FORGET, "restore_forgotten": ADD,
    "list_notes": READ, "edit_note": REWRITE, "link_notes": LINK, "unlink_notes": ARCHIVE,
    "note_history": READ, "revert_note": REWRITE,
}


def build_server(brain: Brain) -> FastMCP:
    """Register every tool, each answer within its size budget (kg_brain/surfaces/budget.py), each
    client offered its profile's (kg_brain/surfaces/profiles.py); nothing here connects to Neo4j or
    loads the model."""
    mcp = FastMCP(name="kg-brain", instructions=INSTRUCTIONS)
    mcp.add_middleware(ToolProfile(brain.settings.kg_brain_tools))
    mcp.add_middleware(ClientRoots())
    mcp.add_middleware(ClientSession())
    mcp.add_middleware(ArgumentErrors())
    mcp.add_middleware(AnswerBudget())
    tools = BrainTools(brain)
    for name, hints in TOOLS.items():
        mcp.tool(tool_errors(getattr(tools, name)), name=name, annotations=hints)
    resources.register(mcp, brain)
    return mcp
