"""search_memory end to end, as an agent's client sees it: one MCP session over streamable HTTP
against `kg-brain serve --http` (bench/load.py HttpServer, on the bench's database), calling
search_memory one call after the other in one project. Each query's call is timed beside the
same search's database time in this process and one raw vector query (the floor), in turn, so
the machine's load falls on all three alike; the first calls are not timed (the server loads
its model, plans its statements and warms its JIT)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport

from bench.load import CALL_TIMEOUT_S, HttpServer
from bench.scale_build import latency_stats

Timer = Callable[[str], float]  # seconds of one call for a query


async def _timed_calls(server: HttpServer, queries: list[str], warmup: list[str],
                       db_s: Timer, floor_s: Timer) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {"end_to_end": [], "db": [], "raw_vector_query": []}
    async with Client(StreamableHttpTransport(server.url, headers=server.headers),
                      timeout=CALL_TIMEOUT_S) as session:
        for n, query in enumerate([*warmup, *queries]):
            began = time.perf_counter()
            result = await session.call_tool("search_memory", {"query": query, "top_k": 10})
            took = time.perf_counter() - began
            if result.is_error:
                raise RuntimeError(f"search_memory failed end to end: {result.content}")
            db, floor = db_s(query), floor_s(query)
            if n >= len(warmup):
                for key, value in (("end_to_end", took), ("db", db),
                                   ("raw_vector_query", floor)):
                    samples[key].append(value)
    return samples


def measure(env: dict[str, str], project: str, queries: list[str], warmup: list[str],
            db_s: Timer, floor_s: Timer) -> dict[str, Any]:
    """p50/p95 of search_memory through one MCP session, of its database time and of one raw
    vector query, in `project`; each p50 and p95 over the floor's p50."""
    server = HttpServer({**env, "KG_BRAIN_PROJECT": project, "SCHEDULER_IN_SERVER": "false"})
    try:
        server.wait_ready()
        samples = asyncio.run(_timed_calls(server, queries, warmup, db_s, floor_s))
    finally:
        server.stop()
    stats = {key: latency_stats(values) for key, values in samples.items()}
    floor = max(stats["raw_vector_query"]["p50_ms"], 1e-6)
    return {"project": project, "transport": "streamable-http", **stats,
            "to_floor": {f"{key}_{p}": round(stats[key][f"{p}_ms"] / floor, 2)
                         for key in ("end_to_end", "db") for p in ("p50", "p95")}}
