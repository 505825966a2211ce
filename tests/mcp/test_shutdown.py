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
from kg_brain.enrichment.embed import Embedder
from kg_brain.store.db import Database
from kg_brain.store.localdb import free_port
from kg_brain.store.schema import bootstrap_schema
from tests.mcp.test_background_work import jobs_of
from tests.mcp.test_stdio import workspace
from tests.support.brains import delete_project, make_brain
from tests.support.mcp import REPO, server_env
from tests.support.neo4j import ServerUnderTest

TOPIC = ("The billing service retries failed webhook deliveries with exponential backoff, "
         "capped at {n} attempts, and records each attempt in the webhook_attempts table.")
# The drains every 0.2 s; the cron jobs (database-wide) only on 29 February, so a catch-up
# at start never archives the shared test database.
BUSY = {"SCHEDULER_IN_SERVER": "true", "EVOLUTION_INTERVAL_S": "0.2",
        "ARCHIVE_CRON": "0 3 29 2 *", "CONSOLIDATION_CRON": "30 3 29 2 *",
        "FORGET_PURGE_CRON": "45 3 29 2 *"}
MARKER = "Deploys go out through the blue-green switch on Tuesdays."


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


def drained(db: Database, project: str) -> None:
    """Returns once the project has no sentences job left: the whole database's drain, which
    takes the projects longest waiting first, has gone past every job queued before."""
    deadline = time.monotonic() + 120
    while any(j["kind"] == "sentences" for j in jobs_of(db, project)):
        assert time.monotonic() < deadline, jobs_of(db, project)
        time.sleep(0.2)


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_a_busy_http_server_stops_without_a_traceback(
        own_neo4j: ServerUnderTest, db: Database, embedder: Embedder, project: str,
        tmp_path: Path, stop: int) -> None:
    """On the run's own server (`own_neo4j`): an HTTP service drains the whole database it
    uses, so on the suite's shared one it would run other tests' queued jobs in the middle of
    those tests. A bystander's job queued on the shared one is still queued after the service's
    drains went past the time it was queued."""
    bystander = f"{project}-bystander"
    make_brain(db, embedder).writer.add(TOPIC.format(n=2), bystander)
    served = Database(own_neo4j.conn)
    bootstrap_schema(served)
    make_brain(served, embedder).writer.add(MARKER, project)
    port = free_port()
    env = server_env(own_neo4j, KG_BRAIN_PROJECT=project, KG_BRAIN_HTTP_AUTH="none",
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
        drained(served, project)
        assert any(_add_notes(url, 6))
    finally:
        proc.send_signal(stop)
        _, stderr = proc.communicate(timeout=60)
        served.close()
    assert proc.returncode == 0, stderr
    assert_clean(stderr)
    try:
        assert [j["kind"] for j in jobs_of(db, bystander)] == ["sentences"]
    finally:
        delete_project(db, bystander)
