"""Every tool's answer fits a client: on a project of several hundred densely linked notes, each
tool called at its maximum arguments answers under 45 KB, and with typical arguments under
16 KB; a trimmed answer says what it left out and how to get it."""

from __future__ import annotations

import json
import re
from typing import Any

import anyio
from fastmcp import Client, FastMCP

from kg_brain.root.app import Brain
from kg_brain.store.links import merge_links
from kg_brain.surfaces.budget import CEILING_BYTES

NOTES = 400
LINKS_PER_NOTE = 12
TYPICAL_BYTES = 16_000
ARCHIVED = (20, 50)  # an ordinary note and a long one
LONG_EVERY = 25
TYPES = ("RELATES_TO", "SUPPORTS", "EXTENDS", "CAUSED_BY", "RELATES_TO", "CONTRADICTS")
KINDS = ("general", "decision", "pattern", "research", "mistake", "fix")
REASON = "both notes describe how the ingest worker retries writes against the graph store " * 2


def content(i: int) -> str:
    """Ordinary notes of a few hundred words; every LONG_EVERY-th at the maximum length."""
    base = (f"Note {i}: the ingest worker {i % 17} retries Neo4j writes with backoff when the "
            f"connection pool of service {i % 23} is exhausted; timeouts and pool size matter. ")
    return (base * (400 if i % LONG_EVERY == 0 else 8))[:32_000]


def dense_project(brain: Brain, project: str) -> list[str]:
    """NOTES notes (a tenth fleeting, for the inbox; two archived) through the bulk importer, each
    linked to its LINKS_PER_NOTE successors through the store, with reasons."""
    ids = brain.importer.add_many([
        {"content": content(i), "title": f"ingest retry note {i}", "project": project,
         "note_kind": KINDS[i % len(KINDS)],
         "memory_type": "fleeting" if i % 10 == 5 else "archived" if i in ARCHIVED else
         "permanent"} for i in range(NOTES)])
    rows = [{"src": ids[i], "dst": ids[(i + j) % NOTES], "type": TYPES[(i + j) % len(TYPES)],
             "reason": REASON, "weight": 0.9, "origin": "manual"}
            for i in range(NOTES) for j in range(1, LINKS_PER_NOTE + 1)]
    brain.db.write_tx(lambda tx: merge_links(tx, rows=rows, now=brain.clock()))
    return ids


def calls(ids: list[str], long_text: str) -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    """Per tool: (typical arguments, maximum arguments)."""
    lists = [long_text[:300]] * 20
    return {
        "open_session": ({}, {}),
        "get_session_context": ({}, {}),
        "get_inbox": ({}, {"limit": 499}),
        "search_memory": ({"query": "why do ingest worker writes to Neo4j time out?"},
                          {"query": long_text[:4_000], "top_k": 100, "include_contextual": True}),
        "deep_search": ({"query": "why do ingest worker writes to Neo4j time out?"},
                        {"query": long_text[:4_000], "top_k": 100, "hops": 3,
                         "include_contextual": True}),
        "recall": ({"zk_ids": ids[1:4]}, {"zk_ids": ids[::8][:50]}),
        "get_related": ({"zk_id": ids[1]}, {"zk_id": ids[0], "depth": 3, "max_nodes": 100}),
        "preflight_check": ({"task": "ingest writes time out"},
                            {"task": long_text[:4_000], "top_k": 50}),
        "add_memory": ({"content": content(1) + " typical"}, {"content": long_text[:-1] + "x"}),
        "update_memory": ({"zk_id": ids[2], "new_content": content(2) + " revised"},
                          {"zk_id": ids[0], "new_content": long_text[:-1] + "y"}),
        "distill_to_permanent": ({"zk_id": ids[5]}, {"zk_id": ids[15]}),
        "record_failure": ({"content": "TimeoutError: ingest write to Neo4j"},
                           {"content": long_text, "failure_signature": long_text[:4_000]}),
        "record_resolution": ({"failure_zk_id": ids[4], "fix_content": "raise the pool size"},
                              {"failure_zk_id": ids[10], "fix_content": long_text}),
        "capture_context": ({"text": content(3)}, {"text": long_text}),
        "close_session": ({"objective": "fix ingest", "completed": ["pool"], "blockers": [],
                           "next_steps": ["watch"]},
                          {"objective": long_text[:2_000], "completed": lists,
                           "blockers": lists, "next_steps": lists, "key_files": lists}),
        "archive_stale_notes": ({}, {"dry_run": True, "project": "*", "limit": 1000}),
        "restore_note": ({"zk_id": ids[ARCHIVED[0]]}, {"zk_id": ids[ARCHIVED[1]]}),
        "decay_report": ({}, {"limit": 1000, "project": "*"}),
        "consolidate_clusters": ({}, {"min_similarity": 0.5, "max_clusters": 100}),
        "brain_stats": ({}, {}),
        "forget_note": ({"zk_ids": [ids[6]], "reason": "wrong"},
                        {"zk_ids": ids[100:150], "reason": long_text[:500]}),
        "restore_forgotten": ({"zk_ids": [ids[6]]}, {"zk_ids": ids[100:150]}),
        "list_notes": ({}, {"limit": 100, "memory_types": ["permanent", "fleeting", "archived"]}),
        "edit_note": ({"zk_id": ids[7], "pinned": True},
                      {"zk_id": ids[8], "pinned": True, "note_kind": "decision",
                       "title": long_text[:200], "tags": [f"tag-{i}" for i in range(20)]}),
        "link_notes": (link(ids[1], ids[200], "x"), link(ids[3], ids[300], long_text[:500])),
        "unlink_notes": (link(ids[1], ids[200]), link(ids[3], ids[300])),
        "note_history": ({"zk_id": ids[2]}, {"zk_id": ids[0]}),
        "revert_note": ({"zk_id": ids[2], "version": 1}, {"zk_id": ids[0], "version": 1}),
    }


def link(src: str, dst: str, reason: str | None = None) -> dict[str, str]:
    """link_notes arguments (with a reason), or unlink_notes' (without)."""
    return {"from_zk_id": src, "to_zk_id": dst, "type": "SUPPORTS",
            **({"reason": reason} if reason is not None else {})}


def measure(server: FastMCP, plan: dict[str, tuple[dict[str, Any], dict[str, Any]]],
            ) -> dict[str, tuple[int, int, dict[str, Any]]]:
    """Per tool: bytes of the typical and the maximal answer's text, and the maximal answer."""

    async def run() -> dict[str, tuple[int, int, dict[str, Any]]]:
        sizes = {}
        async with Client(server) as client:
            for tool, (typical, maximal) in plan.items():
                small = await client.call_tool(tool, typical)
                big = await client.call_tool(tool, maximal)
                sizes[tool] = (len(small.content[0].text.encode()),
                               len(big.content[0].text.encode()), dict(big.structured_content))
        return sizes

    return anyio.run(run)


def test_every_tool_answer_fits_at_maximum_arguments(server: FastMCP, brain: Brain,
                                                     project: str) -> None:
    ids = dense_project(brain, project)
    listed = anyio.run(lambda: _tool_names(server))
    plan = calls(ids, content(0))
    assert set(plan) == listed, f"tools without a size check: {listed - set(plan)}"
    sizes = measure(server, plan)
    report = {tool: (small, big) for tool, (small, big, _) in sizes.items()}
    assert not {t: big for t, (_, big) in report.items() if big >= CEILING_BYTES}
    assert not {t: small for t, (small, _) in report.items() if small >= TYPICAL_BYTES}
    trimmed = {tool: answer for tool, (_, big, answer) in sizes.items() if "trimmed" in answer}
    assert {"search_memory", "deep_search", "recall", "get_related"} <= set(trimmed), report
    for answer in trimmed.values():
        assert answer["trimmed"] and answer["note"].endswith(".")
    assert len(trimmed["search_memory"]["hits"]) + trimmed["search_memory"]["trimmed"]["hits"] \
        == 100
    hit = trimmed["deep_search"]["hits"][0]
    assert len(hit["links"]) <= 3
    assert re.fullmatch(r"[A-Z_]+[<>]ZK-[0-9A-Fa-f]{8}", hit["links"][0])
    assert hit["link_count"] >= 2 * LINKS_PER_NOTE
    related = trimmed["get_related"]
    assert related["total_nodes"] > len(related["nodes"])


async def _tool_names(server: FastMCP) -> set[str]:
    async with Client(server) as client:
        return {t.name for t in await client.list_tools()}


def content_share(answer: dict[str, Any], items: str, fields: tuple[str, ...]) -> float:
    """The share of an answer's bytes (compact JSON, as sent) that is note text."""
    text = sum(len(str(item.get(f, "")).encode()) for item in answer[items] for f in fields)
    return text / len(json.dumps(answer, separators=(",", ":"), ensure_ascii=False).encode())


def test_search_answers_are_mostly_content(server: FastMCP, brain: Brain, project: str) -> None:
    """At default arguments, titles and previews are at least 60% of a search answer: no null
    fields, provenance and links as short texts, the project named once."""
    dense_project(brain, project)

    async def ask() -> dict[str, dict[str, Any]]:
        async with Client(server) as client:
            return {tool: dict((await client.call_tool(tool, {"query": "why do ingest worker "
                                                                      "writes to Neo4j time "
                                                                      "out?"}))
                               .structured_content)
                    for tool in ("search_memory", "deep_search")}

    answers = anyio.run(ask)
    for tool, answer in answers.items():
        assert len(answer["hits"]) == 10 and "project" not in answer["hits"][0]
        assert all(isinstance(f, str) and "None" not in f for h in answer["hits"]
                   for f in h["found_by"])
        assert content_share(answer, "hits", ("title", "preview")) >= 0.6, tool
