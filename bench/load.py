"""Load test of the HTTP service: concurrent MCP clients against one `kg-brain serve --http`.

    kg-brain bench load [--clients 16] [--duration 600] [--out docs/bench/load.json]

One server process (the scheduler off, so the run measures the service alone and works on no
other project's queue), on the configured Neo4j, in a fresh bench-* project. Each client is a
real MCP session over streamable HTTP that, until the duration is up, calls add_memory (half of
the calls), search_memory or deep_search, one call after the other. Every write carries a marker
(its client and sequence number), so afterwards each acknowledged write is looked up in the
graph: a lost write is one whose returned id is missing or holds other text; duplicate ids are
notes sharing an id, or one id returned for two different writes. Reports p50/p95/p99 latency
and errors per tool; the project is deleted afterwards. Timings depend on the machine's other load:
the load average before and after is part of the result.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import random
import secrets
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport

from bench import corpus, store
from bench.cold_start import SERVER
from bench.common import delete_bench_project, emit_result
from bench.degree import percentiles
from kg_brain.base.settings import Settings
from kg_brain.root.app import Brain, resolve_connection
from kg_brain.store.db import Database
from kg_brain.store.localdb import free_port

MIX = (("add_memory", 0.5), ("search_memory", 0.35), ("deep_search", 0.15))
CALL_TIMEOUT_S = 120.0


@dataclass
class ClientLog:
    """What one client saw: latencies (ms) and errors per tool, and every acknowledged write."""

    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: Counter[str] = field(default_factory=Counter)
    samples: list[str] = field(default_factory=list)
    saved: list[tuple[str, str]] = field(default_factory=list)  # (zk_id, marker)
    merged: int = 0


def _texts(index: int, project: str) -> list[str]:
    return [r["content"] for r in corpus.notes(400, f"{project}:{index}")]


async def _client(url: str, headers: dict[str, str], index: int, deadline: float, project: str,
                  seed: int) -> ClientLog:
    rng = random.Random(f"{seed}:{index}")
    texts, out, n = _texts(index, project), ClientLog(), 0
    tools, weights = zip(*MIX, strict=True)
    async with Client(StreamableHttpTransport(url, headers=headers),
                      timeout=CALL_TIMEOUT_S) as session:
        while time.monotonic() < deadline:
            tool = rng.choices(tools, weights)[0]
            text = rng.choice(texts)
            if tool == "add_memory":
                n += 1
                marker = f"(load {index}-{n})"
                args: dict[str, Any] = {"content": f"{text} {marker}"}
            else:
                args = {"query": text[:120]}
            began = time.perf_counter()
            try:
                result = await session.call_tool(tool, args, raise_on_error=False)
                failed = result.is_error
                detail = str(getattr(result.content[0], "text", "") if result.content else "")
            except Exception as exc:  # noqa: BLE001 - a transport failure is a counted error
                failed, result, detail = True, None, f"{type(exc).__name__}: {exc}"
            out.latencies.setdefault(tool, []).append(1000 * (time.perf_counter() - began))
            if failed:
                out.errors[tool] += 1
                if len(out.samples) < 5:
                    out.samples.append(f"{tool}: {detail[:200]}")
            elif tool == "add_memory" and result is not None:
                saved = result.structured_content or {}
                out.merged += bool(saved.get("deduplicated"))
                out.saved.append((str(saved.get("zk_id")), marker))
    return out


async def _clients(url: str, headers: dict[str, str], clients: int, duration_s: float,
                   project: str, seed: int) -> list[ClientLog]:
    deadline = time.monotonic() + duration_s
    return list(await asyncio.gather(*(_client(url, headers, i, deadline, project, seed)
                                       for i in range(clients))))


class HttpServer:
    """The HTTP server (`mcp_server.py --http`, what `kg-brain serve --http` runs) on a free
    loopback port, in a scratch directory, with a token of its own (KG_BRAIN_HTTP_TOKEN: the
    user's token file is left alone)."""

    def __init__(self, env: dict[str, str]) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        token = secrets.token_urlsafe(32)
        self.headers = {"Authorization": f"Bearer {token}"}
        env = {**env, "KG_BRAIN_HTTP_AUTH": "token", "KG_BRAIN_HTTP_TOKEN": token}
        self.stderr = tempfile.TemporaryFile(mode="w+")
        self.cwd = tempfile.TemporaryDirectory(prefix="kg-brain-load-")
        self.proc = subprocess.Popen(
            [sys.executable, str(SERVER), "--http", "--port", str(self.port)],
            env=env, cwd=self.cwd.name, stdout=subprocess.DEVNULL, stderr=self.stderr)

    def wait_ready(self, timeout_s: float = 120.0) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and self.proc.poll() is None:
            try:
                httpx.get(self.url, timeout=1)
                return
            except httpx.TransportError:
                time.sleep(0.2)
        raise RuntimeError(f"the HTTP server did not start: {self.log()[-2000:]}")

    def stop(self) -> str:
        """SIGTERM, as a service manager stops it; returns its stderr."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        text = self.log()
        self.stderr.close()
        self.cwd.cleanup()
        return text

    def log(self) -> str:
        self.stderr.seek(0)
        return self.stderr.read()


def check_writes(db: Database, project: str, logs: list[ClientLog]) -> dict[str, int]:
    """Every acknowledged write looked up by its id and marker; the project's notes without a
    marker (what it held before the run) are left out."""
    stored = [row for row in store.load_notes(db, project=project) if _marker(row["content"])]
    by_id: dict[str, list[str]] = {}
    for row in stored:
        by_id.setdefault(row["zk_id"], []).append(row["content"])
    saved = [s for lg in logs for s in lg.saved]
    returned = Counter(zk for zk, _ in saved)
    lost = sum(1 for zk, marker in saved
               if not any(marker in text for text in by_id.get(zk, [])))
    acked = {marker for _, marker in saved}
    return {
        "writes_acknowledged": len(saved), "notes_stored": len(stored),
        "lost_writes": lost,
        "duplicate_ids": len(stored) - len(by_id) + sum(n - 1 for n in returned.values()
                                                        if n > 1),
        # a write whose answer the client never got (an error or timeout) but which committed
        "stored_but_unacknowledged": sum(1 for row in stored
                                         if _marker(row["content"]) not in acked),
    }


def _marker(text: str) -> str:
    start = text.rfind("(load ")
    return text[start:text.find(")", start) + 1] if start >= 0 else ""


async def _warm(url: str, headers: dict[str, str]) -> None:
    """Connect and search once: the server loads the model and connects to Neo4j."""
    async with Client(StreamableHttpTransport(url, headers=headers),
                      timeout=CALL_TIMEOUT_S) as session:
        await session.list_tools()
        await session.call_tool("search_memory", {"query": "warm up"})


def run_load(db: Database, env: dict[str, str], clients: int, duration_s: float,
             project: str, seed: int = 0) -> dict[str, Any]:
    """One server, `clients` sessions for `duration_s` in `project` (new, or holding notes
    already: `bench scale --clients` runs them in its largest project); the report (nothing
    deleted here)."""
    load_before = os.getloadavg()[0]
    server = HttpServer({**env, "KG_BRAIN_PROJECT": project, "SCHEDULER_IN_SERVER": "false"})
    try:
        server.wait_ready()
        asyncio.run(_warm(server.url, server.headers))
        began = time.monotonic()
        logs = asyncio.run(_clients(server.url, server.headers, clients, duration_s, project,
                                    seed))
        wall = time.monotonic() - began
    finally:
        stderr = server.stop()
    tools = {}
    for tool, _ in MIX:
        times = [t for lg in logs for t in lg.latencies.get(tool, [])]
        tools[tool] = {"calls": len(times), "errors": sum(lg.errors[tool] for lg in logs),
                       "per_s": round(len(times) / wall, 2), "latency_ms": {
                           k: round(float(v), 1) for k, v in percentiles(times).items()}}
    return {
        "benchmark": "load", "clients": clients, "duration_s": round(wall, 1),
        "mix": dict(MIX), "tools": tools, "writes": check_writes(db, project, logs),
        "merged_by_dedup": sum(lg.merged for lg in logs),
        "error_samples": [s for lg in logs for s in lg.samples][:10],
        "server_tracebacks": stderr.count("Traceback"),
        "cpus": os.cpu_count(), "load_avg_1m": {"before": round(load_before, 2),
                                                "after": round(os.getloadavg()[0], 2)},
    }


def quiet_http_logs() -> None:
    for chatty in ("httpx", "httpx2", "mcp"):  # a line per request otherwise
        logging.getLogger(chatty).setLevel(logging.WARNING)


def server_env(settings: Settings) -> dict[str, str]:
    """The environment of an HTTP server on `settings`' database (connection settings only)."""
    conn = resolve_connection(settings, start=False)
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
    env.update({"NEO4J_URI": conn.uri, "NEO4J_USER": conn.user,
                "NEO4J_PASSWORD": conn.password or "", "NEO4J_DATABASE": conn.database,
                "LLM_PROVIDER": "heuristic", "KG_BRAIN_SERVICE": "false",
                "KG_BRAIN_TOOLS": "full"})
    return env


def cmd_load(args: argparse.Namespace, settings: Settings) -> int:
    quiet_http_logs()
    brain = Brain(settings)
    project = f"bench-load-{uuid.uuid4().hex[:8]}"
    try:
        result = run_load(brain.db, dict(os.environ), args.clients, args.duration, project,
                          args.seed)
        emit_result(result, args.out)
    finally:
        delete_bench_project(brain.db, project)
        brain.close()
    writes = result["writes"]
    return 0 if writes["lost_writes"] == 0 and writes["duplicate_ids"] == 0 else 1


def add_parser(kinds: argparse._SubParsersAction) -> None:
    p = kinds.add_parser("load", help="concurrent MCP clients against one HTTP server")
    p.add_argument("--clients", type=int, default=16)
    p.add_argument("--duration", type=float, default=600.0, help="seconds of load")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, default=Path("docs/bench/load.json"))
    p.set_defaults(handler=cmd_load)
