"""The tool contract: names, parameters, annotations and manuals are the API agents rely on.
These tests need no database: building and listing the server must not touch one."""

from __future__ import annotations

import time
import typing

import anyio
import pytest
from fastmcp import Client, FastMCP
from fastmcp.exceptions import ToolError

from kg_brain.base.vocab import LinkType, MemoryType, NoteKind
from kg_brain.root.app import Brain
from kg_brain.surfaces.tools import build_server
from kg_brain.surfaces.tools.base import LinkTypeName, MemoryTypeName, NoteKindName
from tests.support.brains import make_settings

CONTRACT: dict[str, list[str]] = {
    "open_session": ["project"],
    "get_session_context": ["project"],
    "get_inbox": ["project", "limit"],
    "distill_to_permanent": ["zk_id"],
    "deep_search": ["query", "project", "hops", "include_contextual", "top_k"],
    "search_memory": ["query", "top_k", "project", "include_contextual", "note_kinds"],
    "get_related": ["zk_id", "depth", "max_nodes"],
    "add_memory": ["content", "project", "memory_type", "note_kind", "pinned"],
    "update_memory": ["zk_id", "new_content"],
    "archive_stale_notes": ["dry_run", "project", "limit"],
    "close_session": ["objective", "completed", "blockers", "next_steps", "key_files", "project"],
    "brain_stats": [],
    "record_failure": ["content", "project", "failure_signature"],
    "record_resolution": ["failure_zk_id", "fix_content", "project"],
    "preflight_check": ["task", "project", "top_k"],
    "restore_note": ["zk_id"],
    "decay_report": ["limit", "project"],
    "consolidate_clusters": ["project", "dry_run", "selected_cluster_ids", "min_similarity",
                             "max_clusters"],
    "recall": ["zk_ids"],
    "capture_context": ["text", "project"],
    "forget_note": ["zk_ids", "reason", "hard"],
    "restore_forgotten": ["zk_ids"],
    "list_notes": ["project", "note_kinds", "tags", "pinned", "memory_types", "since", "until",
                   "entity", "order", "limit", "cursor"],
    "edit_note": ["zk_id", "pinned", "tags", "note_kind", "title"],
    "link_notes": ["from_zk_id", "to_zk_id", "type", "reason"],
    "unlink_notes": ["from_zk_id", "to_zk_id", "type"],
    "note_history": ["zk_id"],
    "revert_note": ["zk_id", "version"],
}
REQUIRED: dict[str, set[str]] = {
    "distill_to_permanent": {"zk_id"}, "deep_search": {"query"}, "search_memory": {"query"},
    "get_related": {"zk_id"}, "add_memory": {"content"}, "update_memory": {"zk_id", "new_content"},
    "close_session": {"objective", "completed", "blockers", "next_steps"},
    "record_failure": {"content"}, "record_resolution": {"failure_zk_id", "fix_content"},
    "preflight_check": {"task"}, "restore_note": {"zk_id"}, "recall": {"zk_ids"},
    "capture_context": {"text"}, "forget_note": {"zk_ids", "reason"},
    "restore_forgotten": {"zk_ids"}, "edit_note": {"zk_id"},
    "link_notes": {"from_zk_id", "to_zk_id", "type", "reason"},
    "unlink_notes": {"from_zk_id", "to_zk_id", "type"}, "note_history": {"zk_id"},
    "revert_note": {"zk_id", "version"},
}
DEAD_URI = "bolt://127.0.0.1:9"  # discard port: nothing listens


def offline_server() -> FastMCP:
    return build_server(Brain(make_settings(neo4j_uri=DEAD_URI, neo4j_timeout_s=2,
                                            kg_brain_project="contract")))


def list_tools() -> list[typing.Any]:
    async def run() -> list[typing.Any]:
        async with Client(offline_server()) as client:
            return await client.list_tools()

    return anyio.run(run)


def test_every_tool_has_the_contract_name_and_parameters() -> None:
    tools = {t.name: t for t in list_tools()}
    assert set(tools) == set(CONTRACT)
    for name, params in CONTRACT.items():
        schema = tools[name].input_schema
        assert list(schema["properties"]) == params, name
        assert set(schema.get("required", [])) == REQUIRED.get(name, set()), name


def test_every_parameter_is_described() -> None:
    for tool in list_tools():
        for param, spec in tool.input_schema["properties"].items():
            assert spec.get("description"), f"{tool.name}.{param}"


def test_every_tool_is_annotated_and_has_a_short_manual() -> None:
    for tool in list_tools():
        a = tool.annotations
        assert a is not None and a.read_only_hint is not None, tool.name
        assert a.destructive_hint is not None and a.idempotent_hint is not None, tool.name
        assert tool.description and len(tool.description.strip().splitlines()) <= 6, tool.name
        assert tool.output_schema and tool.output_schema.get("type") == "object", tool.name


def test_read_only_tools_are_the_lookups_that_write_nothing() -> None:
    tools = list_tools()
    read_only = {t.name for t in tools if t.annotations.read_only_hint}
    assert read_only == {"open_session", "get_session_context", "get_inbox", "get_related",
                         "brain_stats", "decay_report", "recall", "list_notes",
                         "note_history", "preflight_check"}  # a check before a task is no use
    stamping = {t.name: t for t in tools if t.name in ("search_memory", "deep_search")}
    for tool in stamping.values():  # they stamp access on what they return, and say so
        assert not tool.annotations.destructive_hint and not tool.annotations.idempotent_hint
        assert "not read-only" in tool.description, tool.name


@pytest.mark.parametrize(("tool", "arguments", "names"), [
    ("search_memory", {"query": "x", "top_k": 500}, "top_k: Input should be less than"),
    ("recall", {"zk_ids": "ZK-00000000"}, "zk_ids: Input should be a valid list"),
    ("get_related", {}, "zk_id: Missing required argument"),
])
def test_invalid_arguments_are_told_in_sentences_without_library_links(
        tool: str, arguments: dict[str, typing.Any], names: str) -> None:
    async def run() -> str:
        async with Client(offline_server()) as client:
            result = await client.call_tool(tool, arguments, raise_on_error=False)
            assert result.is_error
            return result.content[0].text

    text = anyio.run(run)
    assert names in text and text.endswith("Correct them and call it again."), text
    assert "pydantic" not in text and "http" not in text, text


def test_note_kind_choices_match_the_model() -> None:
    assert set(typing.get_args(NoteKindName)) == {k.value for k in NoteKind}


def test_link_and_memory_type_choices_match_the_model() -> None:
    assert set(typing.get_args(LinkTypeName)) == {t.value for t in LinkType}
    assert set(typing.get_args(MemoryTypeName)) == {m.value for m in MemoryType}


def test_resources_and_prompts_list_without_a_database() -> None:
    async def run() -> tuple[list[typing.Any], list[typing.Any]]:
        async with Client(offline_server()) as client:
            return await client.list_resource_templates(), await client.list_prompts()

    templates, prompts = anyio.run(run)
    assert {t.uri_template for t in templates} == {"kg-brain://note/{zk_id}",
                                                  "kg-brain://project/{name}"}
    assert all(t.description for t in templates)
    assert {p.name: [a.name for a in p.arguments or []] for p in prompts} == {
        "session_start": ["project"], "session_end": ["project", "objective"]}


def test_tools_list_answers_without_a_database() -> None:
    began = time.monotonic()
    assert len(list_tools()) == len(CONTRACT)
    assert time.monotonic() - began < 5


def test_a_tool_call_without_a_database_says_so() -> None:
    async def run() -> None:
        async with Client(offline_server()) as client:
            await client.call_tool("get_inbox", {})

    with pytest.raises(ToolError, match="database unavailable"):
        anyio.run(run)
