"""Hostile arguments to every tool, through the real MCP client: wrong types, huge, empty and
control-character strings, unicode, Cypher and Lucene syntax, unknown ids and enums. Every call
ends in a result or a clean ToolError (the domain's message or an argument validation error,
never an internal error), and a call that fails leaves the project's graph exactly as it was.

Examples run per tool: `pytest tests/mcp/test_hostile_input.py --hypothesis-show-statistics`.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from fastmcp import Client, FastMCP
from fastmcp.exceptions import ToolError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench import store
from kg_brain.base.validate import PROJECT
from kg_brain.root.app import Brain
from kg_brain.store.notes import new_zk_id
from tests.support.mcp import call

SPECIAL_TEXT = [
    "", " ", "\n\t", "\x00\x01\x02\x1b[31m", "\u202eevil\u202c", "🧠💥" * 50, "Ω≈ç√∫ ÅÍÎÏ",
    "'}) MATCH (n) DETACH DELETE n //", "\" OR 1=1 --", "$query", "`ZK-00000000`",
    "MATCH (n:Note) SET n.project = 'x' RETURN n", "CALL db.index.vector.queryNodes('x', 1, [])",
    "title:(foo AND bar) OR content:baz~2^4 \\ / * ? [ ] { } ! : - && ||", "\"unterminated",
    "AND OR NOT", "*", "?", "~", "{{template}}", "${HOME}", "<script>alert(1)</script>",
    "x" * 40_000, "é" * 33_000, "word " * 7_000,
]
WRONG_TYPES = st.one_of(
    st.integers(), st.floats(allow_nan=False), st.booleans(), st.none(),
    st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=5), st.integers(),
                                                         max_size=2))
TEXT = st.one_of(st.text(max_size=200), st.sampled_from(SPECIAL_TEXT), WRONG_TYPES)
INT = st.one_of(st.integers(-10, 120), st.sampled_from([0, -1, 10**18, -(2**63)]),
                st.text(max_size=4), st.floats(allow_nan=False), st.booleans(), st.none())
BOOL = st.one_of(st.booleans(), st.sampled_from(["true", "no", 0, 1, 2, None, [], {}]))
FLOAT = st.one_of(st.floats(allow_nan=False), st.sampled_from(["0.9", -1, 2, None]))
BAD_PROJECT = st.one_of(
    st.text(max_size=80).filter(lambda s: not PROJECT.match(s.strip())),
    st.sampled_from(["../etc", "a/b", "", " ", "x" * 65, "-lead", "proj\x00", "proj\n", "é"]),
    WRONG_TYPES)
LINKS = ["RELATES_TO", "SUPPORTS", "EXTENDS", "CONTRADICTS", "CAUSED_BY", "FIXES", "SUPERSEDES",
         "PART_OF"]
KINDS = ["mistake", "fix", "pattern", "research", "decision", "general", "open_thread",
         "session_summary", "project_context"]


def enum(values: list[str]) -> st.SearchStrategy[Any]:
    return st.one_of(st.sampled_from(values), st.sampled_from(["archived", "GENERAL", "bogus"]),
                     st.text(max_size=20), WRONG_TYPES)


def str_list(item: st.SearchStrategy[Any] = TEXT) -> st.SearchStrategy[Any]:
    return st.one_of(st.lists(item, max_size=4), st.just(["x"] * 60), WRONG_TYPES, TEXT)


@pytest.fixture
def seeded(server: FastMCP, project: str) -> dict[str, str]:
    """Notes the strategies can point at: permanent, fleeting, a failure and a forgotten one."""
    forgotten = call(server, "add_memory", content="The old CI image pinned Python 3.9.")["zk_id"]
    call(server, "forget_note", zk_ids=[forgotten], reason="obsolete")
    return {
        "forgotten": forgotten,
        "permanent": call(server, "add_memory", content="Neo4j backs kg-brain memory; the vector "
                          "index is cosine over 384-d MiniLM embeddings.")["zk_id"],
        "fleeting": call(server, "add_memory", content="Try a smaller page cache on CI runners.",
                         memory_type="fleeting")["zk_id"],
        "failure": call(server, "record_failure",
                        content="pytest: ConnectionRefusedError on 127.0.0.1:7687")["zk_id"],
    }


def strategies(project: str, ids: dict[str, str]) -> dict[str, dict[str, Any]]:
    """Per tool, per parameter; `project` is only ever this test's project or invalid, and
    '*' is left out of the archival tools, so nothing outside the test's project is touched."""
    proj = st.one_of(st.none(), st.just(project), BAD_PROJECT, st.just("*"))
    local = st.one_of(st.none(), st.just(project), BAD_PROJECT)
    zk = st.one_of(st.sampled_from(sorted(ids.values())), st.builds(new_zk_id),
                   st.sampled_from(["zk-0000abcd", "ZK-XYZ", "ZK-0000000G", "ZK-00000000 "]),
                   TEXT)
    return {
        "open_session": {"project": proj},
        "get_session_context": {"project": proj},
        "get_inbox": {"project": proj, "limit": INT},
        "close_session": {"objective": TEXT, "completed": str_list(), "blockers": str_list(),
                          "next_steps": str_list(), "key_files": str_list(), "project": proj},
        "capture_context": {"text": TEXT, "project": proj},
        "search_memory": {"query": TEXT, "top_k": INT, "project": proj,
                          "include_contextual": BOOL, "note_kinds": str_list(enum(KINDS))},
        "deep_search": {"query": TEXT, "project": proj, "hops": INT,
                        "include_contextual": BOOL, "top_k": INT},
        "recall": {"zk_ids": str_list(zk)},
        "get_related": {"zk_id": zk, "depth": INT},
        "preflight_check": {"task": TEXT, "project": proj, "top_k": INT},
        "add_memory": {"content": TEXT, "project": proj,
                       "memory_type": enum(["permanent", "fleeting"]),
                       "note_kind": enum(KINDS), "pinned": BOOL},
        "update_memory": {"zk_id": zk, "new_content": TEXT},
        "distill_to_permanent": {"zk_id": zk},
        "record_failure": {"content": TEXT, "project": proj, "failure_signature": TEXT},
        "record_resolution": {"failure_zk_id": zk, "fix_content": TEXT, "project": proj},
        "archive_stale_notes": {"dry_run": BOOL, "project": local, "limit": INT},
        "restore_note": {"zk_id": zk},
        "decay_report": {"limit": INT, "project": local},
        "consolidate_clusters": {"project": proj, "dry_run": BOOL,
                                 "selected_cluster_ids": str_list(), "min_similarity": FLOAT,
                                 "max_clusters": INT},
        "brain_stats": {},
        "forget_note": {"zk_ids": str_list(zk), "reason": TEXT, "hard": BOOL},
        "restore_forgotten": {"zk_ids": str_list(zk)},
        "list_notes": {"project": local, "note_kinds": str_list(enum(KINDS)),
                       "tags": str_list(), "pinned": BOOL,
                       "memory_types": str_list(enum(["permanent", "fleeting", "archived"])),
                       "since": TEXT, "until": TEXT, "entity": TEXT,
                       "order": enum(["newest", "oldest", "updated"]), "limit": INT,
                       "cursor": TEXT},
        "edit_note": {"zk_id": zk, "pinned": BOOL, "tags": str_list(),
                      "note_kind": enum(KINDS), "title": TEXT},
        "link_notes": {"from_zk_id": zk, "to_zk_id": zk, "type": enum(LINKS), "reason": TEXT},
        "unlink_notes": {"from_zk_id": zk, "to_zk_id": zk, "type": enum(LINKS)},
        "note_history": {"zk_id": zk},
        "revert_note": {"zk_id": zk, "version": INT},
    }


def arguments(params: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Any subset of the parameters (required ones may be missing), sometimes an unknown one."""
    extra = st.dictionaries(st.sampled_from(["bogus", "project_id", "__proto__"]), TEXT,
                            max_size=1)
    return st.tuples(st.fixed_dictionaries({}, optional=params), extra).map(
        lambda t: {**t[0], **t[1]})


class InternalErrors(logging.Handler):
    """fastmcp logs an unexpected exception in a tool at ERROR with its traceback (a clean
    ToolError is logged at ERROR too, but without one)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info:
            self.records.append(record)


@pytest.fixture
def internal_errors() -> Iterator[InternalErrors]:
    handler = InternalErrors()
    loggers = [logging.getLogger(), logging.getLogger("fastmcp")]  # fastmcp does not propagate
    for logger in loggers:
        logger.addHandler(handler)
    yield handler
    for logger in loggers:
        logger.removeHandler(handler)


def footprint(brain: Brain, project: str) -> dict[str, Any]:
    return store.project_footprint(brain.db, project=project)


def attempt(server: FastMCP, tool: str, args: dict[str, Any]) -> str | None:
    """None when the call returned a result, else the ToolError's text."""

    async def run() -> str | None:
        async with Client(server) as client:
            try:
                await client.call_tool(tool, args)
            except ToolError as exc:
                return str(exc)
            return None

    return anyio.run(run)


def check(brain: Brain, server: FastMCP, project: str, tool: str, args: dict[str, Any],
          internal: InternalErrors) -> None:
    before = footprint(brain, project)
    error = attempt(server, tool, args)
    assert not internal.records, f"{tool}({args!r}) raised an internal error"
    if error is None:
        return
    assert not error.startswith("Error calling tool"), f"{tool}({args!r}): {error}"
    assert "Traceback" not in error and 'File "' not in error, error
    assert footprint(brain, project) == before, f"failed {tool}({args!r}) changed the graph"


HEALTH = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large,
          HealthCheck.filter_too_much]
WRITERS = ["add_memory", "update_memory", "distill_to_permanent", "record_failure",
           "record_resolution", "capture_context", "close_session", "consolidate_clusters",
           "restore_note", "archive_stale_notes", "forget_note", "restore_forgotten", "edit_note",
           "link_notes", "unlink_notes", "revert_note"]
READERS = ["open_session", "get_session_context", "get_inbox", "search_memory", "deep_search",
           "recall", "get_related", "preflight_check", "decay_report", "brain_stats",
           "list_notes", "note_history"]


@pytest.mark.parametrize("tool", WRITERS)
@settings(max_examples=30, deadline=None, suppress_health_check=HEALTH)
@given(data=st.data())
def test_hostile_arguments_to_writing_tools_end_cleanly(
        tool: str, data: st.DataObject, brain: Brain, server: FastMCP, project: str,
        seeded: dict[str, str], internal_errors: InternalErrors) -> None:
    args = data.draw(arguments(strategies(project, seeded)[tool]), label="arguments")
    check(brain, server, project, tool, args, internal_errors)


@pytest.mark.parametrize("tool", READERS)
@settings(max_examples=50, deadline=None, suppress_health_check=HEALTH)
@given(data=st.data())
def test_hostile_arguments_to_reading_tools_end_cleanly(
        tool: str, data: st.DataObject, brain: Brain, server: FastMCP, project: str,
        seeded: dict[str, str], internal_errors: InternalErrors) -> None:
    args = data.draw(arguments(strategies(project, seeded)[tool]), label="arguments")
    check(brain, server, project, tool, args, internal_errors)


def test_every_tool_is_covered() -> None:
    assert set(WRITERS) | set(READERS) == set(strategies("p", {"a": "ZK-00000000"}))
