"""The stdio server spawned as OpenCode spawns it: `python mcp_server.py` in the workspace, with
the connection settings in its environment. Every stdout line must be JSON-RPC."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.cold_start import StdioSession
from kg_brain.base.errors import StoreUnavailable
from kg_brain.store.db import Connection, Database
from tests.mcp.test_contract import CONTRACT
from tests.support.mcp import REPO, server_env
from tests.support.neo4j import ServerUnderTest


def workspace(tmp_path: Path, project: str) -> Path:
    """A git checkout named after the test's project: the server derives its project from it."""
    root = tmp_path / project
    (root / ".git").mkdir(parents=True)
    (root / "src").mkdir()
    return root / "src"


@pytest.mark.routing
def test_a_spawned_stdio_session_speaks_only_json_rpc_on_stdout(
        neo4j_server: ServerUnderTest, project: str, tmp_path: Path) -> None:
    with StdioSession(REPO / "mcp_server.py", server_env(neo4j_server),
                      workspace(tmp_path, project)) as session:
        assert session.initialize()["result"]["serverInfo"]["name"] == "kg-brain"
        listed = session.request("tools/list", {})["result"]["tools"]
        assert {t["name"] for t in listed} == set(CONTRACT)
        saved = session.call_tool("add_memory", {"content": "Stdio sessions log to stderr only."})
        assert saved["result"]["structuredContent"]["project"] == project
        found = session.call_tool("search_memory", {"query": "where do stdio sessions log?"})
        assert found["result"]["structuredContent"]["hits"][0]["title"]
        bad = session.call_tool("recall", {"zk_ids": ["not-an-id"]})
        assert bad["result"]["isError"] and "malformed zk_id" in bad["result"]["content"][0]["text"]
        stderr = session.close()
    assert session.proc.returncode == 0, stderr
    assert session.lines, "no protocol output at all"
    for line in session.lines:
        assert json.loads(line)["jsonrpc"] == "2.0", line


def test_tools_list_answers_before_the_database_or_model_is_touched(
        neo4j_server: ServerUnderTest, project: str, tmp_path: Path) -> None:
    env = server_env(neo4j_server, NEO4J_URI="bolt://127.0.0.1:9")
    with StdioSession(REPO / "mcp_server.py", env, workspace(tmp_path, project)) as session:
        session.initialize()
        listed = session.request("tools/list", {}, timeout=10)["result"]["tools"]
        assert len(listed) == len(CONTRACT)
        down = session.call_tool("get_inbox", {})
        assert down["result"]["isError"]
        text = down["result"]["content"][0]["text"]
        assert "database unavailable at bolt://127.0.0.1:9 (" in text, text
        assert "NEO4J_URI names it, so kg-brain does not start it" in text, text
        assert "kg-brain neo4j start" not in text and text.endswith("then retry."), text
        health = session.call_tool("brain_stats", {})["result"]["structuredContent"]
        assert (health["status"], health["reachable"]) == ("unreachable", False)
        assert "database unavailable" in health["error"]


@pytest.mark.parametrize(("local", "remedy"), [
    (True, "Start it with `kg-brain neo4j start`, then retry."),
    (False, "check that this Neo4j is running and reachable, or correct NEO4J_URI, then retry.")])
def test_an_unreachable_database_names_the_remedy_for_its_configuration(
        local: bool, remedy: str) -> None:
    db = Database(Connection("bolt://127.0.0.1:9", "neo4j", "x", "neo4j", local=local), 2.0)
    try:
        with pytest.raises(StoreUnavailable) as raised:
            db.verify()
    finally:
        db.close()
    assert str(raised.value).endswith(remedy), raised.value
    assert ("kg-brain neo4j start" in str(raised.value)) == local


def test_a_workspace_env_file_cannot_redirect_the_memory(
        neo4j_server: ServerUnderTest, project: str, tmp_path: Path) -> None:
    """The server starts in a workspace whose own .env names another database; kg-brain's
    connection comes from the user's config file and the workspace's .env is ignored."""
    cwd = workspace(tmp_path, project)
    (cwd / ".env").write_text("NEO4J_URI=bolt://127.0.0.1:9\nNEO4J_PASSWORD=app-password\n")
    env = server_env(neo4j_server, XDG_CONFIG_HOME=str(tmp_path / "config"))
    connection = {k: env.pop(k) for k in ("NEO4J_URI", "NEO4J_USER", "NEO4J_PASSWORD",
                                          "NEO4J_DATABASE")}
    user_config = tmp_path / "config" / "kg-brain" / "config.env"
    user_config.parent.mkdir(parents=True)
    user_config.write_text("".join(f"{k}={v}\n" for k, v in connection.items()))
    with StdioSession(REPO / "mcp_server.py", env, cwd) as session:
        session.initialize()
        session.request("tools/list", {})
        stats = session.call_tool("brain_stats", {})["result"]
        session.close()
    assert not stats.get("isError"), stats
    assert stats["structuredContent"]["uri"] == connection["NEO4J_URI"]
