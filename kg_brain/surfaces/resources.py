"""MCP resources and prompts: what clients show people rather than call.

Resources (templates, read by URI): `kg-brain://note/{zk_id}` is one full note as JSON,
`kg-brain://project/{name}` a project's overview (notes by type and kind, the entities most notes
mention, pinned notes, the open thread, forgotten count). Prompts: `session_start` and
`session_end`, the protocol AGENTS.md describes, for a person to start or end a session with.
Domain errors become ResourceError with the domain's message; nothing here connects to Neo4j
until a resource is read.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from fastmcp import FastMCP
from fastmcp.exceptions import ResourceError
from pydantic import Field

from kg_brain.base.errors import BrainError
from kg_brain.root.app import Brain
from kg_brain.surfaces.project import claimer, resolve_project

F = TypeVar("F", bound=Callable[..., Any])
NOTE_URI = "kg-brain://note/{zk_id}"
PROJECT_URI = "kg-brain://project/{name}"
START = """Start this session with the kg-brain memory{scope}:
1. Call open_session(){call}. Read the open thread first: it is where the previous session asked
   to continue. Then the last handoff, pinned and project notes, decisions, and past mistakes
   with their fixes.
2. Before changing code, call preflight_check(task=...) and apply the fixes it lists.
While working: search_memory for facts, deep_search for why/how questions, recall(zk_ids) for
full notes; add_memory what you learn, record_failure and record_resolution for errors."""
END = """End this session with the kg-brain memory{scope}:
1. Store what was learned and not yet stored: add_memory per decision, pattern or fact;
   record_resolution for every failure fixed and verified.
2. Call close_session(objective, completed, blockers, next_steps, key_files){call}. Make
   next_steps concrete enough for the next session to act on without asking.
{objective}"""


def sentence(text: str) -> str:
    """Error text as the agent reads it: ending in a full stop."""
    text = text.strip()
    return text if text.endswith((".", "?", "!")) else text + "."


def domain_errors(error: type[Exception]) -> Callable[[F], F]:
    """The one adapter: domain errors reach the client as `error` (ToolError for tools,
    ResourceError here) with the domain's message, ending in a full stop."""
    def adapt(fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except BrainError as exc:
                raise error(sentence(str(exc))) from None

        return wrapper  # type: ignore[return-value]

    return adapt


def _scope(project: str | None) -> tuple[str, str]:
    return (f" (project {project})", f' with project="{project}"') if project else ("", "")


def session_start(project: Annotated[str | None, Field(
        description="project name; omit for this workspace's project")] = None) -> str:
    """Start a coding session: context, inbox and past mistakes from memory."""
    scope, call = _scope(project)
    return START.format(scope=scope, call=call)


def session_end(
        project: Annotated[str | None, Field(
            description="project name; omit for this workspace's project")] = None,
        objective: Annotated[str | None, Field(
            description="what the session set out to do")] = None) -> str:
    """End a coding session: store what was learned and write the handoff."""
    scope, call = _scope(project)
    goal = f"The session's objective was: {objective}" if objective else ""
    return END.format(scope=scope, call=call, objective=goal).rstrip()


def register(mcp: FastMCP, brain: Brain) -> None:
    """The resource templates and the prompts."""

    @domain_errors(ResourceError)
    def note(zk_id: str) -> str:
        return brain.reader.get([zk_id])[0].model_dump_json()

    @domain_errors(ResourceError)
    def project(name: str) -> str:
        return brain.browsing.overview(
            resolve_project(brain.settings, name, claimer(brain.projects))).model_dump_json()

    mcp.resource(NOTE_URI, name="note", mime_type="application/json",
                 description="one note in full: content, context, links, entities")(note)
    mcp.resource(PROJECT_URI, name="project", mime_type="application/json",
                 description="a project's overview: notes by type and kind, top entities, "
                             "pinned notes, the open thread")(project)
    mcp.prompt(session_start, name="session_start")
    mcp.prompt(session_end, name="session_end")
