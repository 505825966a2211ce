"""Streamable HTTP: loopback by default; off loopback only with a bearer token, enforced (401)."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio
import httpx
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport

from kg_brain.localdb import free_port
from kg_brain.transport import opencode_remote_config
from tests.support.brains import make_settings
from tests.support.mcp import REPO, server_env
from tests.support.neo4j import ServerUnderTest

TOKEN = "test-token-5f1c"


@contextmanager
def http_server(env: dict[str, str], host: str, port: int, cwd: Path) -> Iterator[str]:
    proc = subprocess.Popen([sys.executable, str(REPO / "mcp_server.py"), "--http", "--host",
                             host, "--port", str(port)], env=env, cwd=cwd,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                httpx.get(url, timeout=1)
                break
            except httpx.TransportError:
                time.sleep(0.1)
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        yield url
    finally:
        proc.terminate()
        proc.communicate(timeout=20)


def list_tool_names(url: str, headers: dict[str, str] | None = None) -> set[str]:
    async def run() -> set[str]:
        async with Client(StreamableHttpTransport(url, headers=headers)) as client:
            return {t.name for t in await client.list_tools()}

    return anyio.run(run)


def session_project(url: str, headers: dict[str, str]) -> str:
    async def run() -> str:
        async with Client(StreamableHttpTransport(url, headers=headers)) as client:
            result = await client.call_tool("get_session_context", {})
            return str(result.structured_content["project"])

    return anyio.run(run)


def test_off_loopback_requests_need_the_bearer_token(neo4j_server: ServerUnderTest,
                                                     project: str, tmp_path: Path) -> None:
    env = server_env(neo4j_server, KG_BRAIN_HTTP_TOKEN=TOKEN, KG_BRAIN_PROJECT=project)
    with http_server(env, "0.0.0.0", free_port(), tmp_path) as url:
        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        assert httpx.post(url, json=ping).status_code == 401
        assert httpx.post(url, json=ping, headers={"Authorization": "Bearer wrong"}
                          ).status_code == 401
        auth = {"Authorization": f"Bearer {TOKEN}"}
        assert "search_memory" in list_tool_names(url, auth)
        assert session_project(url, auth) == project


def test_off_loopback_without_a_token_refuses_to_start(neo4j_server: ServerUnderTest,
                                                       tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(REPO / "mcp_server.py"), "--http", "--host",
                           "0.0.0.0", "--port", str(free_port())], env=server_env(neo4j_server),
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "KG_BRAIN_HTTP_TOKEN" in done.stderr


def test_serve_prints_the_opencode_entry_with_a_token_reference() -> None:
    settings = make_settings(kg_brain_http_token=TOKEN)
    entry = opencode_remote_config(settings, "0.0.0.0", 8765)["mcp"]["kg-brain"]
    assert entry["url"] == "http://127.0.0.1:8765/mcp" and entry["type"] == "remote"
    assert entry["headers"] == {"Authorization": "Bearer {env:KG_BRAIN_HTTP_TOKEN}"}


def test_loopback_serves_without_a_token(neo4j_server: ServerUnderTest, project: str,
                                         tmp_path: Path) -> None:
    env = server_env(neo4j_server, KG_BRAIN_PROJECT=project)
    with http_server(env, "127.0.0.1", free_port(), tmp_path) as url:
        assert "open_session" in list_tool_names(url)
