"""Every tool through a real MCP client in memory, over the real Neo4j and embedder."""

from __future__ import annotations

from datetime import timedelta

import pytest
from fastmcp import FastMCP
from fastmcp.exceptions import ToolError

from kg_brain.base.clock import utc_now
from kg_brain.root.app import Brain
from kg_brain.store.notes import new_zk_id
from kg_brain.surfaces.tools import build_server
from tests.support.mcp import call
from tests.support.neo4j import configured_line

pytestmark = pytest.mark.routing  # also run through neo4j:// by `make test-routing`

PORT_NOTE = "The kg-brain HTTP transport listens on port 8765 by default, path /mcp."
NEO4J_NOTE = "Neo4j page cache is sized at 512m for laptops; raise NEO4J_PAGECACHE on servers."


def test_add_memory_names_the_derived_project_and_recall_returns_the_note(
        server: FastMCP, project: str) -> None:
    saved = call(server, "add_memory", content=PORT_NOTE, note_kind="decision")
    assert saved["project"] == project and saved["note_kind"] == "decision"
    notes = call(server, "recall", zk_ids=[saved["zk_id"]])["notes"]
    assert notes[0]["content"] == PORT_NOTE and notes[0]["project"] == project


def test_search_memory_and_deep_search_find_the_note(server: FastMCP, project: str) -> None:
    port = call(server, "add_memory", content=PORT_NOTE)["zk_id"]
    call(server, "add_memory", content=NEO4J_NOTE)
    found = call(server, "search_memory", query="which port does the HTTP transport listen on?",
                 top_k=3)
    assert found["project"] == project and found["hits"][0]["zk_id"] == port
    deep = call(server, "deep_search", query="why would the MCP HTTP endpoint be on 8765?",
                hops=2, top_k=5)
    assert port in [h["zk_id"] for h in deep["hits"]] and deep["hits"][0]["found_by"]


def test_update_memory_replaces_the_content(server: FastMCP) -> None:
    zk_id = call(server, "add_memory", content=PORT_NOTE)["zk_id"]
    updated = "The kg-brain HTTP transport listens on port 9000 since the port clash with X."
    assert call(server, "update_memory", zk_id=zk_id, new_content=updated)["zk_id"] == zk_id
    assert call(server, "recall", zk_ids=[zk_id])["notes"][0]["content"] == updated


def test_fleeting_notes_wait_in_the_inbox_until_distilled(server: FastMCP, project: str) -> None:
    zk_id = call(server, "add_memory", content=NEO4J_NOTE, memory_type="fleeting")["zk_id"]
    call(server, "add_memory", content=PORT_NOTE, memory_type="fleeting")
    inbox = call(server, "get_inbox", limit=1)
    assert inbox["project"] == project and inbox["more"]
    assert [n["zk_id"] for n in inbox["notes"]] == [zk_id]
    assert call(server, "distill_to_permanent", zk_id=zk_id)["memory_type"] == "permanent"
    rest = call(server, "get_inbox")
    assert rest["count"] == 1 and not rest["more"] and rest["notes"][0]["zk_id"] != zk_id


def test_get_related_follows_the_fix_link_and_names_the_project(server: FastMCP,
                                                               project: str) -> None:
    failure = call(server, "record_failure",
                   content="pytest hangs: Neo4j driver never closed at exit")["zk_id"]
    fix = call(server, "record_resolution", failure_zk_id=failure,
               fix_content="Close the Neo4j driver in a session fixture finaliser.")["fix_zk_id"]
    related = call(server, "get_related", zk_id=failure, depth=1)
    assert related["project"] == project
    assert {"src": fix, "dst": failure, "type": "FIXES"}.items() <= next(
        e for e in related["edges"] if e["type"] == "FIXES").items()


def test_stale_notes_archive_and_restore(brain: Brain, server: FastMCP, project: str) -> None:
    zk_id = call(server, "add_memory", content=NEO4J_NOTE)["zk_id"]
    later = Brain(brain.settings, db=brain.db, embedder=brain.embedder,
                  clock=lambda: utc_now() + timedelta(days=200))
    future = build_server(later)
    assert zk_id in [e["zk_id"] for e in call(future, "decay_report", limit=10)["entries"]]
    dry = call(future, "archive_stale_notes")
    assert dry["project"] == project and dry["dry_run"] and dry["archived"] == 0
    assert dry["total"] == len(dry["candidates"]) == 1
    assert zk_id in [c["zk_id"] for c in dry["candidates"]]
    assert call(future, "archive_stale_notes", dry_run=False)["archived"] == 1
    assert call(server, "search_memory", query="Neo4j page cache")["hits"] == []
    assert call(server, "restore_note", zk_id=zk_id)["memory_type"] == "permanent"


def test_consolidate_clusters_dry_run_names_the_project(server: FastMCP, project: str) -> None:
    call(server, "add_memory", content=PORT_NOTE)
    report = call(server, "consolidate_clusters", dry_run=True)
    assert report["project"] == project and report["dry_run"] and report["merged"] == []


def test_brain_stats_counts_the_project_and_reports_the_server(server: FastMCP,
                                                               project: str) -> None:
    call(server, "add_memory", content=PORT_NOTE)
    stats = call(server, "brain_stats")
    assert stats["reachable"] and stats["neo4j_version"].startswith(configured_line())
    assert stats["status"] == ("degraded" if stats["problems"] else "online")  # shared database
    assert stats["by_project"][project] == 1
    assert any(i["type"] == "VECTOR" and i["state"] == "ONLINE" for i in stats["indexes"])


def test_capture_context_keeps_each_statement_as_a_fleeting_note(server: FastMCP) -> None:
    text = ("We moved the session store from Redis to Neo4j last week. "
            "The embedding model now loads lazily on the first search. "
            "Integration tests must never wipe the shared database.")
    captured = call(server, "capture_context", text=text)
    assert len(captured["notes"]) == 3
    assert call(server, "get_inbox")["count"] == 3


def test_record_failure_reports_an_earlier_identical_failure_and_its_fix(
        server: FastMCP) -> None:
    trace = ('Traceback (most recent call last):\n  File "/home/a/app/db.py", line 42, in connect\n'
             "ConnectionRefusedError: [Errno 111] Connection refused to 127.0.0.1:7687")
    first = call(server, "record_failure", content=f"Server start failed.\n{trace}")
    call(server, "record_resolution", failure_zk_id=first["zk_id"],
         fix_content="Start Neo4j first with `kg-brain neo4j start`, then the server.")
    again = call(server, "record_failure", content="CI job crashed on boot",
                 failure_signature=trace.replace("/home/a", "/builds/b").replace("42", "57"))
    assert again["failure_signature"] == first["failure_signature"]
    assert again["seen_before"][0]["zk_id"] == first["zk_id"]
    assert again["seen_before"][0]["fixes"]


def test_explicit_project_overrides_the_workspace_project(server: FastMCP, project: str) -> None:
    other = f"{project}-other"
    assert call(server, "add_memory", content=PORT_NOTE, project=other)["project"] == other
    assert call(server, "search_memory", query="HTTP port")["hits"] == []


def test_domain_errors_reach_the_agent_as_tool_errors(server: FastMCP) -> None:
    missing = new_zk_id()
    with pytest.raises(ToolError, match=f"no note with id {missing}"):
        call(server, "get_related", zk_id=missing)  # recall answers per id instead
    with pytest.raises(ToolError, match="invalid project"):
        call(server, "add_memory", content=PORT_NOTE, project="../etc")


def test_recall_answers_per_id_found_not_found_or_archived(
        server: FastMCP, brain: Brain, project: str) -> None:
    kept, archived = brain.importer.add_many([
        {"content": "The importer batches writes by 500 rows.", "project": project},
        {"content": "The old importer wrote row by row.", "project": project,
         "memory_type": "archived"}])
    answer = call(server, "recall", zk_ids=[kept, "ZK-0000ABCD", archived, kept])
    assert [n["zk_id"] for n in answer["notes"]] == [kept, archived]
    assert answer["not_found"] == ["ZK-0000ABCD"] and answer["archived"] == [archived]
    assert call(server, "recall", zk_ids=["ZK-0000ABCD"]) == {
        "notes": [], "not_found": ["ZK-0000ABCD"], "archived": []}
