"""Orderly shutdown: a server stopped while its scheduler drains the evolution queue stops the
jobs, lets in-flight work finish (or releases it) and only then closes the driver; stderr shows
no traceback. Stopped the ways a client or a user stops one: stdin closed, SIGTERM, SIGINT."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import anyio
import httpx
import pytest
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport

from bench.cold_start import StdioSession
from kg_brain.store.localdb import free_port
from tests.mcp.test_stdio import workspace
from tests.support.mcp import REPO, server_env
from tests.support.neo4j import ServerUnderTest

TOPIC = ("The billing service retries failed webhook deliveries with exponential backoff, "
         "capped at {n} attempts, and records each attempt in the webhook_attempts table.")
# The drains every 0.2 s; the cron jobs (database-wide) only on 29 February, so a catch-up
# at start never archives the shared test database.
BUSY = {"SCHEDULER_IN_SERVER": "true", "EVOLUTION_INTERVAL_S": "0.2",
        "ARCHIVE_CRON": "0 3 29 2 *", "CONSOLIDATION_CRON": "30 3 29 2 *",
        "FORGET_PURGE_CRON": "45 3 29 2 *"}


def assert_clean(stderr: str) -> None:
    assert "Traceback" not in stderr, stderr
    assert "Driver closed" not in stderr, stderr
    assert "maintenance scheduler stopped" in stderr, stderr


@pytest.mark.parametrize("stop", ["stdin", "SIGTERM", "SIGINT"])
def test_a_busy_stdio_server_stops_without_a_traceback(
        neo4j_server: ServerUnderTest, project: str, tmp_path: Path, stop: str) -> None:
    with StdioSession(REPO / "mcp_server.py", server_env(neo4j_server, **BUSY),
                      workspace(tmp_path, project)) as session:
        session.initialize()
        session.request("tools/list", {})  # starts the scheduler
        queued = [session.call_tool("add_memory", {"content": TOPIC.format(n=n)})
                  for n in range(3, 9)]
        assert any(q["result"]["structuredContent"]["evolution_queued"] for q in queued)
        if stop != "stdin":
            session.proc.send_signal(getattr(signal, stop))
        stderr = session.close()
    assert session.proc.returncode == 0, stderr
    assert_clean(stderr)


def _add_notes(url: str, count: int) -> list[bool]:
    async def run() -> list[bool]:
        async with Client(StreamableHttpTransport(url)) as client:
            await client.list_tools()
            return [bool((await client.call_tool("add_memory", {"content": TOPIC.format(n=n)})
                          ).structured_content["evolution_queued"]) for n in range(3, 3 + count)]

    return anyio.run(run)


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_a_busy_http_server_stops_without_a_traceback(
        neo4j_server: ServerUnderTest, project: str, tmp_path: Path, stop: int) -> None:
    port = free_port()
    env = server_env(neo4j_server, KG_BRAIN_PROJECT=project, KG_BRAIN_HTTP_AUTH="none",
                     **BUSY)  # stopping is the subject here, access: tests/mcp/test_http.py
    proc = subprocess.Popen([sys.executable, str(REPO / "mcp_server.py"), "--http", "--port",
                             str(port)], env=env, cwd=tmp_path, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:
            try:
                httpx.get(url, timeout=1)
                break
            except httpx.TransportError:
                time.sleep(0.1)
        assert any(_add_notes(url, 6))
    finally:
        proc.send_signal(stop)
        _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0, stderr
    assert_clean(stderr)
