"""One repository, one memory, whatever path a workspace reaches it by: its worktrees, clones and
a renamed copy read what it wrote, and two unrelated repositories of the same name see none of
each other's notes (0 of N), through the in-memory MCP server (roots), a spawned stdio server,
the relay to the shared HTTP service (the URL it names), a stateless client at the URL `kg-brain
wire --url` writes, and the OpenCode plugin's endpoint. Real git, real Neo4j, real embedder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import httpx
from fastmcp import Client, FastMCP
from fastmcp.client.transports import StreamableHttpTransport

from bench.cold_start import StdioSession
from bench.repos import clone, git, repository, worktree
from kg_brain.root.app import Brain
from kg_brain.store.localdb import free_port
from kg_brain.surfaces.wire import workspace_url
from tests.mcp.test_http import http_server
from tests.mcp.test_relay import MCP, relay_env
from tests.support.brains import make_settings
from tests.support.mcp import server_env
from tests.support.neo4j import ServerUnderTest

N = 3


def family(base: Path, name: str) -> dict[str, Path]:
    """A repository `name` with a worktree, a clone, and a copy renamed after cloning."""
    main = repository(base / "team-a" / name, commits=2)
    copy = clone(main, base / "copy-before-rename")
    renamed = copy.rename(base / f"{name}-renamed")
    return {"main": main, "worktree": worktree(main, base / f"{name}-feature-x"),
            "clone": clone(main, base / f"{name}-copy"), "renamed": renamed}


async def _write_and_list(server: Any, folder: Path, texts: list[str]) -> tuple[str, set[str]]:
    async with Client(server, roots=[folder.as_uri()], mode="legacy") as client:
        for text in texts:
            await client.call_tool("add_memory", {"content": text})
        page = (await client.call_tool("list_notes", {"limit": 50})).structured_content
        return str(page["project"]), {str(n["title"]) for n in page["notes"]}


def write_and_list(server: Any, folder: Path, texts: list[str]) -> tuple[str, set[str]]:
    """Writes `texts` from the workspace `folder` (its MCP root), then lists the titles it
    sees."""
    return anyio.run(_write_and_list, server, folder, texts)


def facts(who: str) -> list[str]:
    return [f"The {who} service keeps build cache {i} in /var/cache/{who}-{i}."
            for i in range(N)]


def titles(who: str) -> set[str]:
    """The titles the heuristic enricher gives `facts(who)`: their first sentence."""
    return {f.rstrip(".") for f in facts(who)}


def test_worktree_clone_and_renamed_copy_read_what_the_repository_wrote(
        server: FastMCP, project: str, tmp_path: Path) -> None:
    folders = family(tmp_path, f"{project}-api")
    key, seen = write_and_list(server, folders["main"], facts("alpha"))
    assert key == f"{project}-api" and seen == titles("alpha")
    for where in ("worktree", "clone", "renamed"):
        assert write_and_list(server, folders[where], []) == (key, seen), where


def test_two_unrelated_repositories_of_one_name_see_none_of_each_others_notes(
        server: FastMCP, brain: Brain, project: str, tmp_path: Path) -> None:
    name = f"{project}-api"
    a = repository(tmp_path / "team-a" / name)
    b = repository(tmp_path / "team-b" / name)
    key_a, seen_a = write_and_list(server, a, facts("alpha"))
    key_b, seen_b = write_and_list(server, b, facts("beta"))
    assert key_a == name and key_b.startswith(f"{name}-") and key_b != key_a  # shown apart
    assert seen_a == titles("alpha") and seen_b == titles("beta")  # 0 of N leaked
    assert write_and_list(server, a, [])[1] == titles("alpha")
    listed = {r["key"]: r for r in brain.projects.listing() if r["key"] in (key_a, key_b)}
    assert {r["name"] for r in listed.values()} == {name} and len(listed) == 2


def stdio_project(env: dict[str, str], cwd: Path) -> tuple[str, list[str]]:
    """A window spawned in `cwd` without roots: the project it writes to and what it lists."""
    with StdioSession(MCP, env, cwd) as session:
        session.initialize()
        saved = session.call_tool("add_memory", {"content": f"Spawned in {cwd.name}."})
        page = session.call_tool("list_notes", {"limit": 50})["result"]["structuredContent"]
        session.close()
    return saved["result"]["structuredContent"]["project"], \
        [n["title"] for n in page["notes"]]


def test_a_stdio_window_and_a_relayed_window_name_the_same_project_as_roots(
        neo4j_server: ServerUnderTest, server: FastMCP, project: str, tmp_path: Path) -> None:
    """No roots: a window served in-process names the workspace it was spawned in, a window
    relayed to the shared service names it in the URL; both are the repository's project."""
    folders = family(tmp_path, f"{project}-svc")
    key, _ = write_and_list(server, folders["main"], facts("gamma"))
    port = free_port()
    env = relay_env(neo4j_server, port, tmp_path / "data")
    alone, notes = stdio_project(env, folders["worktree"])
    assert alone == key and titles("gamma") <= set(notes)
    outside = tmp_path / "scratch" / f"{project}-notes"
    outside.mkdir(parents=True)
    plain, _ = stdio_project(env, outside)
    with http_server(env, "127.0.0.1", port, tmp_path):
        relayed, notes = stdio_project(env, folders["clone"])
        assert relayed == key and titles("gamma") <= set(notes)
        assert stdio_project(env, outside)[0] == plain == f"{project}-notes"


def test_the_wired_url_and_the_plugin_endpoint_name_the_repositorys_project(
        neo4j_server: ServerUnderTest, server: FastMCP, project: str, tmp_path: Path) -> None:
    folders = family(tmp_path, f"{project}-web")
    other = repository(tmp_path / "team-b" / f"{project}-web")
    key, _ = write_and_list(server, folders["main"], facts("delta"))
    env = server_env(neo4j_server, KG_BRAIN_HTTP_AUTH="none")
    with http_server(env, "127.0.0.1", free_port(), tmp_path) as url:
        settings = make_settings(kg_brain_project=None)
        for where, expected in (("renamed", key), ("worktree", key)):
            wired = workspace_url(settings, url, folders[where])
            assert "repo=git" in wired and str(tmp_path) not in wired
            assert listed(StreamableHttpTransport(wired)) == (expected, titles("delta"))
        base = url.removesuffix("/mcp")
        for folder, expected in ((folders["clone"], key), (other, None)):
            answer = httpx.post(f"{base}/plugin/recall", timeout=60, json={
                "directory": str(folder), "text": "where is the delta build cache?"}).json()
            assert (answer["project"] == key) == (expected == key), answer
            assert bool(answer["ids"]) == (expected == key), answer


def listed(transport: Any) -> tuple[str, set[str]]:
    async def run() -> tuple[str, set[str]]:
        async with Client(transport, mode="auto") as client:
            page = (await client.call_tool("list_notes", {"limit": 50})).structured_content
            return str(page["project"]), {str(n["title"]) for n in page["notes"]}

    return anyio.run(run)


def test_a_repository_keeps_its_notes_through_its_first_commit(
        server: FastMCP, project: str, tmp_path: Path) -> None:
    fresh = repository(tmp_path / f"{project}-new", commits=0)
    key, seen = write_and_list(server, fresh, facts("epsilon"))
    git(fresh, "commit", "-q", "--allow-empty", "-m", "first")
    assert write_and_list(server, fresh, []) == (key, seen)
    later = clone(fresh, tmp_path / f"{project}-new-copy")  # has the commit: same project
    assert write_and_list(server, later, []) == (key, titles("epsilon"))
