"""Streamable HTTP, through real requests to the real service: loopback by default; a bearer
token on every request (the one the service makes on its first start, or KG_BRAIN_HTTP_TOKEN);
a foreign Origin or Host refused (403); none of them reaches the graph."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport

from kg_brain.store.db import Database
from kg_brain.store.localdb import free_port
from kg_brain.surfaces.transport import opencode_remote_config
from tests.e2e.conftest import project_notes
from tests.support.brains import make_settings
from tests.support.mcp import REPO, bearer, server_env
from tests.support.neo4j import ServerUnderTest

TOKEN = "test-token-5f1c"
NOTE = "The HTTP service admits only its user: Origin, Host and a bearer token are checked."


@contextmanager
def http_server(env: dict[str, str], host: str, port: int, cwd: Path,
                log: Path | None = None) -> Iterator[str]:
    """The service on host:port, its stderr in `log` when given."""
    with open(log or os.devnull, "w") as err:
        proc = subprocess.Popen([sys.executable, str(REPO / "mcp_server.py"), "--http", "--host",
                                 host, "--port", str(port)], env=env, cwd=cwd,
                                stdout=subprocess.DEVNULL, stderr=err, text=True)
        url = f"http://127.0.0.1:{port}/mcp"
        try:
            deadline = time.monotonic() + 90
            while time.monotonic() < deadline and proc.poll() is None:
                try:
                    httpx.get(url, timeout=1)
                    break
                except httpx.TransportError:
                    time.sleep(0.1)
            assert proc.poll() is None, log.read_text() if log else "the service exited"
            yield url
        finally:
            proc.terminate()
            proc.wait(timeout=30)


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
    env = server_env(neo4j_server, KG_BRAIN_HTTP_TOKEN=TOKEN, KG_BRAIN_PROJECT=project,
                     KG_BRAIN_DATA_DIR=str(tmp_path / "data"))
    with http_server(env, "0.0.0.0", free_port(), tmp_path) as url:
        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        assert httpx.post(url, json=ping).status_code == 401
        assert httpx.post(url, json=ping, headers={"Authorization": "Bearer wrong"}
                          ).status_code == 401
        auth = {"Authorization": f"Bearer {TOKEN}"}
        assert "search_memory" in list_tool_names(url, auth)
        assert session_project(url, auth) == project
    assert not (tmp_path / "data" / "state" / "token").exists()  # the set token, not a file


def test_without_a_token_only_loopback_serves_and_says_so(neo4j_server: ServerUnderTest,
                                                          project: str, tmp_path: Path) -> None:
    env = server_env(neo4j_server, KG_BRAIN_HTTP_AUTH="none", KG_BRAIN_PROJECT=project,
                     KG_BRAIN_DATA_DIR=str(tmp_path / "data"))
    done = subprocess.run([sys.executable, str(REPO / "mcp_server.py"), "--http", "--host",
                           "0.0.0.0", "--port", str(free_port())], env=env,
                          cwd=tmp_path, capture_output=True, text=True, timeout=90)
    assert done.returncode == 2 and "KG_BRAIN_HTTP_AUTH=none is for loopback only" in done.stderr
    log = tmp_path / "service.log"
    with http_server(env, "127.0.0.1", free_port(), tmp_path, log) as url:
        assert "open_session" in list_tool_names(url)
    assert "KG_BRAIN_HTTP_AUTH=none: the service requires no token" in log.read_text()
    assert not (tmp_path / "data" / "state" / "token").exists()


def test_serve_prints_the_opencode_entry_with_a_token_reference(tmp_path: Path) -> None:
    settings = make_settings(kg_brain_http_token=TOKEN)
    entry = opencode_remote_config(settings, "0.0.0.0", 8765)["mcp"]["kg-brain"]
    assert entry["url"] == "http://127.0.0.1:8765/mcp?tools=full" and entry["type"] == "remote"
    assert entry["headers"] == {"Authorization": "Bearer {env:KG_BRAIN_HTTP_TOKEN}"}
    made = make_settings(kg_brain_data_dir=tmp_path)
    entry = opencode_remote_config(made, "127.0.0.1", 8765)["mcp"]["kg-brain"]
    assert entry["headers"] == {"Authorization": f"Bearer {{file:{tmp_path}/state/token}}"}


def rpc(method: str, params: dict[str, Any], ident: int | None = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": params,
            **({"id": ident} if ident is not None else {})}


def open_session(url: str, auth: dict[str, str]) -> dict[str, str]:
    """initialize and initialized as a client sends them: the headers of the live session."""
    headers = {**auth, "Accept": "application/json, text/event-stream"}
    reply = httpx.post(url, headers=headers, json=rpc("initialize", {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "probe", "version": "1"}}))
    assert reply.status_code == 200, reply.text
    headers["Mcp-Session-Id"] = reply.headers["mcp-session-id"]
    assert httpx.post(url, headers=headers, json=rpc("notifications/initialized", {}, None)
                      ).status_code == 202
    return headers


def test_a_foreign_origin_or_host_and_a_missing_or_wrong_token_never_reach_the_graph(
        neo4j_server: ServerUnderTest, db: Database, project: str, tmp_path: Path) -> None:
    env = server_env(neo4j_server, KG_BRAIN_PROJECT=project,
                     KG_BRAIN_DATA_DIR=str(tmp_path / "data"))
    port, log = free_port(), tmp_path / "service.log"
    with http_server(env, "127.0.0.1", port, tmp_path, log) as url:
        session = open_session(url, bearer(env))  # a live session: only the checks stand between
        tokenless = {k: v for k, v in session.items() if k != "Authorization"}
        refused = {"foreign origin": ({**session, "Origin": "http://evil.example.com"}, 403),
                   "foreign host": ({**session, "Host": f"evil.example.com:{port}"}, 403),
                   "missing token": (tokenless, 401),
                   "wrong token": ({**tokenless, "Authorization": "Bearer " + "x" * 43}, 401)}
        for case, (headers, status) in refused.items():
            reply = httpx.post(url, headers=headers, json=rpc("tools/call", {
                "name": "add_memory", "arguments": {"content": f"{NOTE} ({case})"}}))
            assert reply.status_code == status, (case, reply.text)
        local_page = {**session, "Origin": f"http://localhost:{port}"}
        kept = httpx.post(url, headers=local_page, timeout=300, json=rpc(
            "tools/call", {"name": "add_memory", "arguments": {"content": NOTE}}))
        assert kept.status_code == 200 and "zk_id" in kept.text, kept.text
    assert [n["content"] for n in project_notes(db, project)] == [NOTE]
    lines = log.read_text()
    assert "refused POST /mcp from 127.0.0.1: Origin 'http://evil.example.com'" in lines
    assert f"Host 'evil.example.com:{port}' is not this service's address" in lines
    assert lines.count("refused POST /mcp from 127.0.0.1: missing or wrong bearer token") == 2


def test_the_token_and_the_folders_the_service_writes_are_the_users_alone(
        neo4j_server: ServerUnderTest, tmp_path: Path) -> None:
    """A data and cache folder from before the rule (755 folders, 644 files) are tightened on
    the next start; the token the service makes is 0600 in a 0700 state folder."""
    data, cache = tmp_path / "data", tmp_path / "cache"
    older = (data / "neo4j" / "logs" / "debug.log", cache / "onnx" / "ab12" / "model.onnx")
    for old in older:
        old.parent.mkdir(parents=True)
        old.write_text("an older install")
        old.chmod(0o644)
        for folder in old.parents:
            if folder.is_relative_to(tmp_path) and folder != tmp_path:
                folder.chmod(0o755)
    env = server_env(neo4j_server, KG_BRAIN_DATA_DIR=str(data), KG_BRAIN_CACHE_DIR=str(cache))
    with http_server(env, "127.0.0.1", free_port(), tmp_path) as url:
        assert httpx.get(url.replace("/mcp", "/health"), headers=bearer(env)).status_code == 200
        token = data / "state" / "token"
        assert stat.S_IMODE(token.stat().st_mode) == 0o600
        assert len(token.read_text().strip()) >= 43  # 256 random bits, URL-safe base64
    written = [p for root in (data, cache) for p in (root, *root.rglob("*"))]
    assert {*older, data / "state" / "token"} <= set(written)
    assert {str(p): oct(stat.S_IMODE(p.stat().st_mode)) for p in written
            if stat.S_IMODE(p.stat().st_mode) not in (0o700, 0o600)} == {}
