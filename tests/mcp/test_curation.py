"""The curation tools through a real MCP client over the real Neo4j and embedder: forgetting
(views, links, entities, undo, purge, hard erase, backups, mirror), browsing, editing, hand-made
links, history, and the resources and prompts."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client, FastMCP
from fastmcp.exceptions import ToolError

from bench import store
from kg_brain.base.clock import utc_now
from kg_brain.enrichment.embed import Embedder
from kg_brain.root.app import Brain
from kg_brain.store import lifecycle, links
from kg_brain.store.db import Database
from kg_brain.surfaces.tools import build_server
from kg_brain.views.backup import export_records, restore_records
from tests.support.brains import make_settings
from tests.support.mcp import call

RETRY = "Retry the Neo4j connection with exponential backoff when the bolt port refuses."
BACKOFF = "Exponential backoff on bolt reconnects is capped at 30 seconds in kg-brain."
PAGE = "The Neo4j page cache for CI runners is 256m to fit the runner's memory."


def refused(server: FastMCP, tool: str, **args: Any) -> str:
    with pytest.raises(ToolError) as caught:
        call(server, tool, **args)
    return str(caught.value)


def db_query(db: Database, query: str, **params: Any) -> list[dict[str, Any]]:
    records, _, _ = db.driver.execute_query(query, params, database_=db.conn.database)
    return [r.data() for r in records]


def entity_notes(db: Database, project: str, key: str) -> int | None:
    rows = db_query(db, "MATCH (e:Entity {project: $p, key: $k}) RETURN e.notes AS n",
                    p=project, k=key)
    return rows[0]["n"] if rows else None


def sorted_links(links: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(links, key=lambda x: (x["zk_id"], x["type"], x["direction"]))


def ids(answer: dict[str, Any], key: str = "notes") -> list[str]:
    return [n["zk_id"] for n in answer[key]]


def test_forget_removes_a_note_from_every_view_and_undo_brings_it_back(
        server: FastMCP, brain: Brain, db: Database, project: str) -> None:
    retry = call(server, "add_memory", content=RETRY)["zk_id"]
    backoff = call(server, "add_memory", content=BACKOFF)["zk_id"]
    call(server, "link_notes", from_zk_id=backoff, to_zk_id=retry, type="EXTENDS",
         reason="the cap of the backoff")
    fleeting = call(server, "add_memory", content=PAGE, memory_type="fleeting")["zk_id"]
    linked = sorted_links(call(server, "recall", zk_ids=[retry])["notes"][0]["links"])
    assert (backoff, "EXTENDS", "in") in [(x["zk_id"], x["type"], x["direction"]) for x in linked]
    assert entity_notes(db, project, "exponential backoff") == 2
    assert entity_notes(db, project, "neo4j connection") == 1
    answer = call(server, "forget_note", zk_ids=[retry, fleeting], reason="wrong")
    assert answer["project"] == project and answer["undo_until"] and not answer["hard"]
    hits = call(server, "search_memory", query="bolt reconnect backoff", top_k=10)["hits"]
    assert retry not in [h["zk_id"] for h in hits]
    assert call(server, "get_inbox")["count"] == 0
    assert retry not in ids(call(server, "list_notes", memory_types=["permanent", "fleeting"]))
    assert call(server, "recall", zk_ids=[retry, backoff]) | {"notes": []} == {
        "notes": [], "not_found": [retry], "archived": []}
    assert not [r for r in export_records(db, projects=[project]) if r.get("zk_id") == retry]
    assert call(server, "recall", zk_ids=[backoff])["notes"][0]["links"] == []
    assert entity_notes(db, project, "exponential backoff") == 1
    assert entity_notes(db, project, "neo4j connection") is None  # no note mentions it now
    assert db_query(db, "MATCH (f:Forgotten {zk_id: $z}) RETURN f.embedding AS e, "
                        "f.forget_reason AS r", z=retry) == [{"e": None, "r": "wrong"}]
    back = call(server, "restore_forgotten", zk_ids=[retry, fleeting])
    assert back["project"] == project and back["links"] == len(linked)
    hits = call(server, "search_memory", query="bolt reconnect backoff", top_k=10)["hits"]
    assert retry in [h["zk_id"] for h in hits]
    assert entity_notes(db, project, "exponential backoff") == 2
    assert entity_notes(db, project, "neo4j connection") == 1
    assert sorted_links(call(server, "recall", zk_ids=[retry])["notes"][0]["links"]) == linked
    assert call(server, "get_inbox")["count"] == 1


def test_a_refused_forget_changes_nothing(server: FastMCP, brain: Brain, project: str) -> None:
    kept = call(server, "add_memory", content=RETRY)["zk_id"]
    before = store.project_footprint(brain.db, project=project)
    assert "no note with id ZK-0000ABCD" in refused(
        server, "forget_note", zk_ids=[kept, "ZK-0000ABCD"], reason="wrong")
    assert "reason is empty" in refused(server, "forget_note", zk_ids=[kept], reason="  ")
    assert store.project_footprint(brain.db, project=project) == before
    call(server, "forget_note", zk_ids=[kept], reason="wrong")
    assert "already forgotten" in refused(server, "forget_note", zk_ids=[kept], reason="again")
    assert "no forgotten note" in refused(server, "restore_forgotten", zk_ids=["ZK-0000ABCD"])


def test_hard_forget_erases_the_tombstone_and_the_revisions(
        server: FastMCP, db: Database, project: str) -> None:
    zk_id = call(server, "add_memory", content="The staging token is kept in vault path kv/x.")[
        "zk_id"]
    call(server, "update_memory", zk_id=zk_id, new_content="The staging token lives in kv/y.")
    answer = call(server, "forget_note", zk_ids=[zk_id], reason="sensitive", hard=True)
    assert answer["hard"] and answer["undo_until"] is None
    assert db_query(db, "MATCH (x) WHERE (x:Forgotten OR x:Revision OR x:Note) AND "
                        "x.zk_id = $z RETURN count(x) AS c", z=zk_id) == [{"c": 0}]
    assert "cannot come back" in refused(server, "restore_forgotten", zk_ids=[zk_id])


def test_the_purge_ends_the_undo_window_and_backups_do_not_bring_notes_back(
        db: Database, embedder: Embedder, project: str) -> None:
    start = utc_now()
    now = [start]
    brain = Brain(make_settings(kg_brain_project=project, forget_undo_days=7), db=db,
                  embedder=embedder, clock=lambda: now[0])
    server = build_server(brain)
    zk_id = call(server, "add_memory", content=RETRY)["zk_id"]
    backup = list(export_records(db, projects=[project]))
    call(server, "forget_note", zk_ids=[zk_id], reason="obsolete")
    assert brain.curation.purge_expired(project) == 0
    now[0] = start + timedelta(days=8)
    assert brain.curation.purge_expired(project) == 1
    assert "purged" in refused(server, "restore_forgotten", zk_ids=[zk_id])
    row = db_query(db, "MATCH (f:Forgotten {zk_id: $z}) RETURN f.content AS c, "
                       "f.forget_reason AS r, f.project AS p", z=zk_id)
    assert row == [{"c": None, "r": "obsolete", "p": project}]
    assert restore_records(db, backup).notes == 0
    assert call(server, "recall", zk_ids=[zk_id])["not_found"] == [zk_id]


def test_a_forgotten_note_leaves_the_mirror(db: Database, embedder: Embedder, project: str,
                                            tmp_path: Path) -> None:
    brain = Brain(make_settings(kg_brain_project=project, obsidian_vault_path=tmp_path,
                                obsidian_vault_subfolder="brain"), db=db, embedder=embedder)
    server = build_server(brain)
    soft = call(server, "add_memory", content=RETRY)["zk_id"]
    hard = call(server, "add_memory", content=PAGE)["zk_id"]
    brain.mirror.drain()
    zk = tmp_path / "brain" / "zk"
    assert (zk / f"{soft}.md").exists() and (zk / f"{hard}.md").exists()
    call(server, "forget_note", zk_ids=[soft], reason="wrong")
    call(server, "forget_note", zk_ids=[hard], reason="secret", hard=True)
    brain.mirror.drain()
    assert not (zk / f"{soft}.md").exists() and not (zk / f"{hard}.md").exists()


def test_list_notes_pages_newest_first_and_filters(server: FastMCP, project: str) -> None:
    made = [call(server, "add_memory", content=f"Decision {i}: service s{i} owns table t{i} "
                 f"and port {8100 + i}.", note_kind="decision", pinned=i == 0)["zk_id"]
            for i in range(5)]
    seen: list[str] = []
    cursor = None
    for _ in range(3):
        page = call(server, "list_notes", limit=2, **({"cursor": cursor} if cursor else {}))
        assert page["project"] == project and len(page["notes"]) <= 2
        seen += ids(page)
        cursor = page["next_cursor"]
    assert seen == made[::-1] and cursor is None
    assert ids(call(server, "list_notes", order="oldest", limit=5)) == made
    assert ids(call(server, "list_notes", pinned=True)) == [made[0]]
    assert ids(call(server, "list_notes", note_kinds=["mistake"])) == []
    assert ids(call(server, "list_notes", since="2000-01-01", until="2000-01-02")) == []
    assert "invalid cursor" in refused(server, "list_notes", cursor="bogus")
    assert "same order" in refused(server, "list_notes", order="oldest",
                                   cursor=call(server, "list_notes", limit=1)["next_cursor"])
    preview = call(server, "list_notes", limit=1)["notes"][0]
    assert "content" not in preview and len(preview["preview"]) <= 160


def test_list_notes_pages_to_every_note_when_the_budget_trims_a_page(
        server: FastMCP, brain: Brain, project: str) -> None:
    made = brain.importer.add_many([
        {"content": f"Note {i}: the ingest worker retries graph writes with backoff. " * 4,
         "title": f"Ingest retry note {i} " + "on the graph store's exhausted pool " * 8,
         "tags": [f"ingest-retry-{j}-of-note-{i}" for j in range(6)], "project": project}
        for i in range(45)])
    for order in ("newest", "oldest"):
        seen: list[str] = []
        pages: list[dict[str, Any]] = []
        cursor = None
        while len(pages) < len(made):
            page = call(server, "list_notes", limit=100, order=order,
                        **({"cursor": cursor} if cursor else {}))
            assert "trimmed" not in page and page["notes"]
            pages.append(page)
            seen += ids(page)
            if (cursor := page["next_cursor"]) is None:
                break
        assert len(pages) > 2 and "next_cursor" in pages[0]["hint"]
        assert sorted(seen) == sorted(made)


def test_list_notes_by_entity(server: FastMCP, project: str) -> None:
    bolt = call(server, "add_memory", content=RETRY)["zk_id"]
    call(server, "add_memory", content="Use UTC timestamps in every log line.")
    assert ids(call(server, "list_notes", entity="Exponential Backoff")) == [bolt]
    assert ids(call(server, "list_notes", entity="neo4j connection")) == [bolt]


def test_edit_note_keeps_a_revision_and_reembeds_only_for_a_new_title(
        server: FastMCP, db: Database, project: str) -> None:
    zk_id = call(server, "add_memory", content=PAGE)["zk_id"]

    def vector() -> list[float]:
        return db_query(db, "MATCH (n:Note {zk_id: $z}) RETURN n.embedding AS e", z=zk_id)[0]["e"]

    first = vector()
    edited = call(server, "edit_note", zk_id=zk_id, pinned=True, tags=["CI", "neo4j", "ci"],
                  note_kind="decision")
    assert edited["project"] == project and edited["pinned"] and edited["tags"] == ["ci", "neo4j"]
    assert edited["note_kind"] == "decision" and not edited["reembedded"]
    assert vector() == first
    retitled = call(server, "edit_note", zk_id=zk_id, title="CI page cache size")
    assert retitled["reembedded"] and retitled["title"] == "CI page cache size"
    assert vector() != first
    history = call(server, "note_history", zk_id=zk_id)
    assert history["project"] == project and [r["version"] for r in history["revisions"]] == [2, 1]
    assert "nothing to edit" in refused(server, "edit_note", zk_id=zk_id)


def test_hand_made_links_are_manual_and_never_pruned(server: FastMCP, brain: Brain) -> None:
    a = call(server, "add_memory", content=RETRY)["zk_id"]
    b = call(server, "add_memory", content=PAGE)["zk_id"]
    made = call(server, "link_notes", from_zk_id=b, to_zk_id=a, type="RELATES_TO",
                reason="both are CI connection settings")
    assert made["origin"] == "manual" and made["project"] == brain.settings.kg_brain_project
    brain.db.write_tx(lambda tx: links.prune_similarity_links(tx, zk_ids=[a, b], keep=0))
    kept = call(server, "recall", zk_ids=[b])["notes"][0]["links"]
    assert (a, "RELATES_TO", "out") in [(x["zk_id"], x["type"], x["direction"]) for x in kept]
    assert "itself" in refused(server, "link_notes", from_zk_id=a, to_zk_id=a, type="SUPPORTS",
                               reason="x")
    removed = call(server, "unlink_notes", from_zk_id=b, to_zk_id=a, type="RELATES_TO")
    assert removed["origin"] == "manual"
    assert "there is no RELATES_TO link" in refused(server, "unlink_notes", from_zk_id=b,
                                                    to_zk_id=a, type="RELATES_TO")


def test_a_hand_made_link_stays_manual_when_consolidation_moves_it(
        server: FastMCP, brain: Brain, db: Database) -> None:
    a = call(server, "add_memory", content=RETRY)["zk_id"]
    b = call(server, "add_memory", content=PAGE)["zk_id"]
    merged = call(server, "add_memory", content="Use UTC timestamps in every log line.")["zk_id"]
    call(server, "link_notes", from_zk_id=a, to_zk_id=b, type="RELATES_TO", reason="by hand")
    brain.db.write_tx(lambda tx: lifecycle.move_links(tx, merged=merged, originals=[a]))
    brain.db.write_tx(lambda tx: links.prune_similarity_links(tx, zk_ids=[merged], keep=0))
    assert db_query(db, "MATCH (:Note {zk_id: $m})-[r:RELATES_TO]->(:Note {zk_id: $b}) "
                        "RETURN r.origin AS o", m=merged, b=b) == [{"o": "manual"}]


def test_links_never_cross_projects(server: FastMCP, project: str) -> None:
    a = call(server, "add_memory", content=RETRY)["zk_id"]
    b = call(server, "add_memory", content=PAGE, project=f"{project}-other")["zk_id"]
    assert "different projects" in refused(server, "link_notes", from_zk_id=a, to_zk_id=b,
                                           type="SUPPORTS", reason="x")


def test_revert_note_brings_a_version_back(server: FastMCP) -> None:
    zk_id = call(server, "add_memory", content=RETRY)["zk_id"]
    call(server, "update_memory", zk_id=zk_id, new_content=BACKOFF)
    reverted = call(server, "revert_note", zk_id=zk_id, version=1)
    assert reverted["version"] == 1
    assert call(server, "recall", zk_ids=[zk_id])["notes"][0]["content"] == RETRY
    assert "has no revision 9" in refused(server, "revert_note", zk_id=zk_id, version=9)


def test_resources_and_prompts(server: FastMCP, project: str) -> None:
    pinned = call(server, "add_memory", content=RETRY, pinned=True)["zk_id"]

    async def run() -> tuple[Any, ...]:
        async with Client(server) as client:
            templates = await client.list_resource_templates()
            note = await client.read_resource(f"kg-brain://note/{pinned}")
            overview = await client.read_resource(f"kg-brain://project/{project}")
            prompts = await client.list_prompts()
            start = await client.get_prompt("session_start", {"project": project})
            return templates, note, overview, prompts, start

    templates, note, overview, prompts, start = anyio.run(run)
    assert {t.uri_template for t in templates} == {"kg-brain://note/{zk_id}",
                                                 "kg-brain://project/{name}"}
    assert json.loads(note[0].text)["zk_id"] == pinned
    view = json.loads(overview[0].text)
    assert view["project"] == project and view["notes_by_type"] == {"permanent": 1}
    assert [p["zk_id"] for p in view["pinned"]] == [pinned] and view["top_entities"]
    assert {p.name for p in prompts} == {"session_start", "session_end"}
    assert "open_session" in start.messages[0].content.text
