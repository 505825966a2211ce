"""The client session a call comes from, as the session order sees it: each MCP session over
HTTP writes its own chain, a stateless client names its session in the X-KG-Brain-Session
header or writes none, the plugin names the OpenCode session in its body, and a server serving
one client in-process is that client's one session. (The relay's header: tests/mcp/test_relay.py
and tests/mcp/test_service.py.)"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from fastmcp import Client, FastMCP
from fastmcp.client.transports import StreamableHttpTransport

from kg_brain.store.localdb import free_port
from tests.mcp.test_http import http_server
from tests.mcp.test_project import workspace
from tests.support.mcp import call, server_env
from tests.support.neo4j import ServerUnderTest

NOTES = ["The nightly export job writes parquet files to the archive bucket.",
         "Mobile release builds are signed on the CI runner, never on laptops.",
         "The archive bucket keeps parquet exports for ninety days.",
         "The Android signing key lives in the CI secret store."]


@pytest.fixture(scope="module")
def service(neo4j_server: ServerUnderTest,
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of one HTTP service for the module; each test names its own project."""
    folder = tmp_path_factory.mktemp("service")
    port = free_port()
    env = server_env(neo4j_server, KG_BRAIN_HTTP_AUTH="none")  # access: tests/mcp/test_http.py
    with http_server(env, "127.0.0.1", port, folder):
        yield f"http://127.0.0.1:{port}"


async def add(client: Client, text: str) -> str:
    return str((await client.call_tool("add_memory", {"content": text})
                ).structured_content["zk_id"])


async def recalled(client: Client, zk_ids: list[str]) -> list[dict[str, Any]]:
    return list((await client.call_tool("recall", {"zk_ids": zk_ids})
                 ).structured_content["notes"])


def follows(note: dict[str, Any]) -> list[str]:
    return [x["zk_id"] for x in note["links"] if x["type"] == "FOLLOWS" and x["direction"] == "out"]


def test_two_mcp_sessions_over_http_write_a_session_order_each(service: str,
                                                               project: str) -> None:
    url = f"{service}/mcp?project={project}"

    async def run() -> list[dict[str, Any]]:
        async with Client(StreamableHttpTransport(url), mode="legacy") as one, \
                Client(StreamableHttpTransport(url), mode="legacy") as two:
            ids = [await add(one, NOTES[0]), await add(two, NOTES[1]),
                   await add(one, NOTES[2]), await add(two, NOTES[3])]
            return await recalled(one, ids)

    a1, b1, a2, b2 = anyio.run(run)
    assert [follows(n) for n in (a1, b1, a2, b2)] == [[], [], [a1["zk_id"]], [b1["zk_id"]]]
    assert a1["session_id"] == a2["session_id"] != b1["session_id"] == b2["session_id"]
    assert a1["session_id"].startswith("mcp-")  # a digest, not the live session's key


def test_a_stateless_client_names_its_session_in_the_header_or_writes_no_order(
        service: str, project: str) -> None:
    url = f"{service}/mcp?project={project}"

    async def written(headers: dict[str, str] | None, texts: list[str]) -> list[dict[str, Any]]:
        async with Client(StreamableHttpTransport(url, headers=headers), mode="auto") as client:
            return await recalled(client, [await add(client, t) for t in texts])

    named = anyio.run(written, {"X-KG-Brain-Session": "window-7"}, NOTES[:2])
    assert follows(named[1]) == [named[0]["zk_id"]]
    assert named[1]["session_id"] == "window-7"
    unnamed = anyio.run(written, None, NOTES[2:])
    assert [follows(n) for n in unnamed] == [[], []]
    assert [n["session_id"] for n in unnamed] == [None, None]


def test_the_plugin_names_the_opencode_session_in_its_body(service: str, project: str,
                                                          tmp_path: Path) -> None:
    folder = str(workspace(tmp_path, project))

    def remember(text: str, session: str) -> str:
        reply = httpx.post(f"{service}/plugin/remember", timeout=60, json={
            "directory": folder, "text": text, "session_id": session})
        assert reply.status_code == 200, reply.text
        return str(reply.json()["zk_id"])

    ids = [remember(NOTES[0], "ses_a"), remember(NOTES[1], "ses_b"), remember(NOTES[2], "ses_a")]
    refused = httpx.post(f"{service}/plugin/remember", timeout=60, json={
        "directory": folder, "text": NOTES[3], "session_id": "no spaces allowed"})
    assert refused.status_code == 400 and "session" in refused.json()["error"]

    async def run() -> list[dict[str, Any]]:
        async with Client(StreamableHttpTransport(f"{service}/mcp?project={project}")) as c:
            return await recalled(c, ids)

    notes = anyio.run(run)
    assert [follows(n) for n in notes] == [[], [], [ids[0]]]
    assert [n["session_id"] for n in notes] == ["ses_a", "ses_b", "ses_a"]


def test_a_server_serving_one_client_in_process_is_its_one_session(server: FastMCP) -> None:
    first = call(server, "add_memory", content=NOTES[0])["zk_id"]
    second = call(server, "add_memory", content=NOTES[1])["zk_id"]  # another client session
    [note] = call(server, "recall", zk_ids=[second])["notes"]
    assert follows(note) == [first] and note["session_id"].startswith("process-")
