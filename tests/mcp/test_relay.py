"""`kg-brain mcp` as a client window spawns it: forwarded to the warm shared service when one
runs (answers come from it, each window keeps its workspace's project, the relay stays light),
served in-process when none does."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from bench.cold_start import StdioSession
from bench.common import rss_mb
from kg_brain.base.private import ensure_token
from kg_brain.base.settings import load_settings
from kg_brain.store.localdb import free_port
from tests.mcp.test_contract import CONTRACT
from tests.mcp.test_http import http_server
from tests.mcp.test_stdio import workspace
from tests.support.loopback import imitation
from tests.support.mcp import REPO, server_env
from tests.support.neo4j import ServerUnderTest

MCP = [sys.executable, "-m", "kg_brain.surfaces.cli", "mcp"]
HEAVY = ("neo4j", "torch", "onnxruntime", "sentence_transformers", "fastmcp", "mcp")
NOTE = "The relay forwards each stdio window to the warm kg-brain service on port 8765."


def relay_env(neo4j_server: ServerUnderTest, port: int, data: Path) -> dict[str, str]:
    """The relay and the service share a data folder: the relay reads the token the service
    made there."""
    return server_env(neo4j_server, PYTHONPATH=str(REPO), KG_BRAIN_SERVICE="true",
                      KG_BRAIN_SERVICE_START="false", KG_BRAIN_HTTP_PORT=str(port),
                      KG_BRAIN_DATA_DIR=str(data))


def window(env: dict[str, str], folder: Path) -> StdioSession:
    return StdioSession(MCP, env, folder, roots=[folder])


def test_windows_forwarded_to_the_warm_service_share_it_each_in_its_project(
        neo4j_server: ServerUnderTest, project: str, tmp_path: Path) -> None:
    port = free_port()
    env = relay_env(neo4j_server, port, tmp_path / "data")
    here, elsewhere = workspace(tmp_path, project), workspace(tmp_path, f"{project}-b")
    with http_server(env, "127.0.0.1", port, tmp_path):
        with window(env, here) as first:
            first.initialize()
            assert len(first.request("tools/list", {})["result"]["tools"]) == len(CONTRACT)
            saved = first.call_tool("add_memory", {"content": NOTE})["result"]
            assert saved["structuredContent"]["project"] == project
            maps = Path(f"/proc/{first.proc.pid}/maps").read_text()
            assert "onnxruntime" not in maps and "torch" not in maps
            assert (rss_mb(first.proc.pid) or 0) < 150
            first_log = first.close()
        with window(env, here) as second, window(env, elsewhere) as other:
            second.initialize()
            other.initialize()
            found = second.call_tool("search_memory", {"query": "what forwards stdio windows?"})
            hits = found["result"]["structuredContent"]["hits"]
            assert hits and hits[0]["zk_id"] == saved["structuredContent"]["zk_id"]
            theirs = other.call_tool("search_memory", {"query": "what forwards stdio windows?"})
            assert theirs["result"]["structuredContent"]["project"] == f"{project}-b"
    assert "forwarding to the shared kg-brain service" in first_log


def followed(win: StdioSession, zk_id: str) -> tuple[list[str], str]:
    """The notes `zk_id` FOLLOWS and the session it names, as the window recalls it."""
    [note] = win.call_tool("recall", {"zk_ids": [zk_id]})["result"]["structuredContent"]["notes"]
    return ([x["zk_id"] for x in note["links"]
             if x["type"] == "FOLLOWS" and x["direction"] == "out"], note["session_id"])


def saved_id(win: StdioSession, text: str) -> str:
    return str(win.call_tool("add_memory", {"content": text})["result"]["structuredContent"][
        "zk_id"])


def test_two_windows_forwarded_to_one_service_write_a_session_order_each(
        neo4j_server: ServerUnderTest, project: str, tmp_path: Path) -> None:
    """Each relay names its window in a header of its own: two windows of one workspace
    writing in turn keep a chain each."""
    port = free_port()
    env = relay_env(neo4j_server, port, tmp_path / "data")
    here = workspace(tmp_path, project)
    with http_server(env, "127.0.0.1", port, tmp_path), window(env, here) as one, \
            window(env, here) as two:
        one.initialize()
        two.initialize()
        ids = [saved_id(one, NOTE), saved_id(two, "Subagents write through their window."),
               saved_id(one, "The relay starts a service when none answers on the port."),
               saved_id(two, "A window's project comes from its workspace's git root.")]
        (a1, sa1), (b1, sb1), (a2, sa2), (b2, sb2) = [followed(one, z) for z in ids]
        logs = [one.close(), two.close()]
    assert [a1, b1, a2, b2] == [[], [], [ids[0]], [ids[1]]]
    assert sa1 == sa2 != sb1 == sb2 and not sa1.startswith(("mcp-", "process-"))
    assert all("forwarding to the shared kg-brain service" in log for log in logs)


def test_without_a_service_the_window_is_served_in_process(
        neo4j_server: ServerUnderTest, project: str, tmp_path: Path) -> None:
    here = workspace(tmp_path, project)
    with window(relay_env(neo4j_server, free_port(), tmp_path / "data"), here) as alone:
        alone.initialize()
        saved = alone.call_tool("add_memory", {"content": NOTE})["result"]
        assert saved["structuredContent"]["project"] == project
        found = alone.call_tool("search_memory", {"query": "what forwards stdio windows?"})
        assert found["result"]["structuredContent"]["hits"][0]["zk_id"] == \
            saved["structuredContent"]["zk_id"]
        later = saved_id(alone, "A window served in-process loads the model itself.")
        assert followed(alone, later)[0] == [saved["structuredContent"]["zk_id"]]
        log = alone.close()
    assert "forwarding" not in log and alone.proc.returncode == 0, log


def test_the_relay_path_imports_no_model_driver_or_mcp_library() -> None:
    probe = ("import sys, kg_brain.surfaces.cli, kg_brain.surfaces.relay; "
             f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True,
                          text=True, check=True)
    assert done.stdout.strip() == "[]", done.stdout



def test_a_window_beside_the_service_of_another_data_folder_sends_it_nothing(
        neo4j_server: ServerUnderTest, project: str, tmp_path: Path) -> None:
    """A service started with another data folder (another token, another socket) holds the
    port: the window says so once and is served in-process, never forwarded."""
    port = free_port()
    here = workspace(tmp_path, project)
    service_log = tmp_path / "service.log"
    with http_server(relay_env(neo4j_server, port, tmp_path / "service"), "127.0.0.1", port,
                     tmp_path, service_log):
        with window(relay_env(neo4j_server, port, tmp_path / "window"), here) as refused:
            refused.initialize()
            saved = refused.call_tool("add_memory", {"content": NOTE})["result"]
            log = refused.close()
    assert saved["structuredContent"]["project"] == project
    assert f"port {port} is held by a program that is not your kg-brain service" in log, log
    assert "forwarding" not in log
    served = service_log.read_text()  # its one refusal: the fixture's readiness probe
    assert "/health" not in served and "refused POST" not in served, served


def test_a_stand_in_on_the_port_that_answers_as_kg_brain_receives_no_token(
        neo4j_server: ServerUnderTest, project: str, tmp_path: Path) -> None:
    """Something other than this user's service listens on the port and answers /health as
    kg-brain would: the relay, holding the token, sends it nothing, warns once and serves the
    window in-process; it starts no service either (that one could not bind the port)."""
    data = tmp_path / "data"
    env = {**relay_env(neo4j_server, 0, data), "KG_BRAIN_SERVICE_START": "true"}
    token = ensure_token(load_settings(_env_file=None, kg_brain_data_dir=data))
    health = {"service": "kg-brain", "neo4j_uri": env["NEO4J_URI"], "pid": 1}
    with imitation(health) as (port, seen):
        env["KG_BRAIN_HTTP_PORT"] = str(port)
        with window(env, workspace(tmp_path, project)) as win:
            win.initialize()
            saved = win.call_tool("add_memory", {"content": NOTE})["result"]
            log = win.close()
    assert saved["structuredContent"]["project"] == project  # served in-process
    assert not any("authorization" in request or token in json.dumps(request)
                   for request in seen), seen
    warnings = [line for line in log.splitlines() if " WARNING " in line]
    assert len(warnings) == 1 and f"port {port} is held by a program that is not your " \
        "kg-brain service" in warnings[0], log
    assert not (data / "state" / "service.log").exists()  # no service was started
