"""`kg-brain bench scale`: one database grown to 10k, 30k and 100k notes across many projects of
uneven sizes, and at each size the searches and writes timed beside their floors.

    kg-brain bench scale [--notes 10000,30000,100000] [--projects 24] [--queries 60]
                         [--configured] [--out docs/bench/scale.json]

The bench starts a private Neo4j (NEO4J_VERSION; a temporary home, free ports) and stops it at
the end, unless --configured names the configured server (then its own bench-scale-* projects
are deleted afterwards). One project holds half the notes, the rest shrink geometrically (most
of them small: an exact scan answers their vector channel, bench/scale_build.py). The database
grows from one size to the next: most notes come through the bulk import (its rate beside the
embedding runtime's raw batched rate on the same texts, measured just before and just after it),
a share through add_memory in client sessions, as an agent writes them (entities, typed links,
FOLLOWS, evolution and sentences jobs queued; those adds are timed, each beside the floor of one
write of the same text; then the sentences jobs of the imported and the added notes are
drained, timed, as the scheduler would).
Then, after --warmup-seconds of untimed
calls, each query is run in turn as every call being compared, so the machine's load falls on
all of them alike: one embedding, one raw vector index query, one raw full-text query (the
floors), search_memory and deep_search (total, and database time alone) in the largest project
and in one of the others. Then one MCP client calls search_memory in the largest project
through `kg-brain serve --http`, one call after the other, each call beside its database time and
one raw vector query (--mcp-queries, bench/scale_e2e.py). Ratios are taken to the floors of the
same run; the machine's load average is recorded before and after each size. With --clients N,
after the last size N concurrent MCP sessions write and search the largest project through one
HTTP server for --load-seconds (bench/load.py: p50/p95/p99 per tool, every acknowledged write
checked).
"""

from __future__ import annotations

import argparse
import itertools
import logging
import os
import random
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench import corpus, scale_e2e, store
from bench.common import delete_bench_project, emit_result
from bench.load import quiet_http_logs, run_load, server_env
from bench.scale_build import Layout, grow, latency_stats, seconds
from bench.scale_profile import profile_searches
from kg_brain.base.settings import Settings
from kg_brain.base.vocab import VECTOR_INDEX
from kg_brain.domain.query_text import lucene_query
from kg_brain.domain.search import Search
from kg_brain.root.app import Brain, interrupt_on_sigterm
from kg_brain.store.db import Database, Mode
from kg_brain.store.localdb import private_server

WARMUP_QUERIES = 30


class TimedDatabase:
    """Wraps a Database and remembers how long the last read/write call took (database time,
    including the round trip, excluding embedding)."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self.last_s = 0.0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._db, name)

    def run(self, name: str, mode: Mode, params: dict[str, Any],
            changes: tuple[str, ...] = ()) -> Any:
        began = time.perf_counter()
        try:
            return self._db.run(name, mode, params, changes)
        finally:
            self.last_s = time.perf_counter() - began


def load_avg() -> float:
    return round(os.getloadavg()[0], 2)


class Reads:
    """Every call compared, for one query at a time: the floors, then each search in the
    largest project and in another one (database time from TimedDatabase)."""

    def __init__(self, brain: Brain, layout: Layout) -> None:
        self.brain = brain
        self.layout = layout
        self.timed = TimedDatabase(brain.db)
        self.search = Search(replace(brain.deps, db=self.timed))  # type: ignore[arg-type]
        self.samples: dict[str, list[float]] = {}

    def _keep(self, key: str, value: float) -> None:
        self.samples.setdefault(key, []).append(value)

    def one(self, query: str, other: str) -> None:
        brain = self.brain
        vector: list[list[float]] = []
        self._keep("embedding", seconds(lambda: vector.append(brain.embedder.encode(query))))
        self._keep("raw_vector_query", seconds(lambda: store.raw_vector_query(
            brain.db, index=VECTOR_INDEX, k=10, vector=vector[0])))
        self._keep("raw_fulltext_query", seconds(lambda: store.raw_fulltext_query(
            brain.db, lex=lucene_query(query), k=10)))
        search = self.search
        for where, project in (("largest", self.layout.largest), ("other", other)):
            for name, call in (
                    ("search_memory", lambda p=project: search.search_memory(query, p, top_k=10)),
                    ("deep_search", lambda p=project: search.deep_search(query, p, top_k=10))):
                self._keep(f"{name}.{where}.total", seconds(call))
                self._keep(f"{name}.{where}.db", self.timed.last_s)

    def search_db_s(self, query: str) -> float:
        """Database time of search_memory in the largest project (the MCP measure's)."""
        self.search.search_memory(query, self.layout.largest, top_k=10)
        return self.timed.last_s

    def raw_vector_s(self, query: str) -> float:
        vector = self.brain.embedder.encode(query)
        return seconds(lambda: store.raw_vector_query(self.brain.db, index=VECTOR_INDEX, k=10,
                                                      vector=vector))

    def run(self, queries: list[str], others: list[str]) -> None:
        for query, other in zip(queries, itertools.cycle(others)):
            self.one(query, other)

    def warm(self, queries: list[str], others: list[str], duration_s: float) -> None:
        """Untimed calls for `duration_s`: query planning, the server's JIT compiler and the
        first page loads are not timed."""
        deadline = time.monotonic() + duration_s
        for query, other in zip(itertools.cycle(queries), itertools.cycle(others)):
            if time.monotonic() > deadline:
                break
            self.one(query, other)
        self.samples.clear()

    def result(self) -> dict[str, Any]:
        stats = {key: latency_stats(values) for key, values in self.samples.items()}
        out: dict[str, Any] = {"floor": {key: stats[key] for key in (
            "embedding", "raw_vector_query", "raw_fulltext_query")}}
        for name in ("search_memory", "deep_search"):
            out[name] = {where: {part: stats[f"{name}.{where}.{part}"] for part in ("total", "db")}
                         for where in ("largest", "other")}
        return out


def ratios(entry: dict[str, Any]) -> dict[str, float]:
    """Each p50 over its floor's p50: database time of a search over one raw vector query, an
    add over one embedding of a query plus one raw vector query, and over the floor of one
    write timed beside each add (one embedding of the text add_memory embeds and one raw vector
    query: the least a write can do)."""
    floor = entry["floor"]
    raw = max(floor["raw_vector_query"]["p50_ms"], 1e-6)
    out = {f"{name}_{where}": round(entry[name][where]["db"]["p50_ms"] / raw, 2)
           for name in ("search_memory", "deep_search") for where in ("largest", "other")}
    write_floor = floor["embedding"]["p50_ms"] + floor["raw_vector_query"]["p50_ms"]
    for where, stats in entry["add_memory"].items():
        out[f"add_memory_{where}"] = round(stats["p50_ms"] / write_floor, 2)
        beside = entry["add_memory_write_floor"][where]["floor"]["p50_ms"]
        out[f"add_memory_{where}_to_write_floor"] = round(stats["p50_ms"] / beside, 2)
    return out


def measure_graph(brain: Brain, project: str, samples: int) -> dict[str, Any]:
    ids = [h.zk_id for h in brain.search.search_memory("retry backoff failure", project, top_k=20)]
    rng = random.Random(3)
    picks = [rng.choice(ids) for _ in range(samples)] if ids else []
    related = [seconds(lambda z=z: brain.search.get_related(z, depth=2)) for z in picks]
    archive = [seconds(lambda: brain.lifecycle.archive_stale(dry_run=True, project=project))
               for _ in range(3)]
    return {"get_related_depth2": latency_stats(related) if related else None,
            "archive_dry_run": latency_stats(archive)}


def run(brain: Brain, sizes: list[int], projects: int, queries: int, add_share: float,
        warmup_s: float, profile: bool = False, mcp_queries: int = 0,
        save: Callable[[dict[str, Any]], None] | None = None,
        server_pid: int | None = None) -> dict[str, Any]:
    """Grow one database through `sizes` and measure at each, saving the result so far after
    each size (`save`; `server_pid`: a private server's process, whose CPU during each import
    is recorded); each search is profiled there too when `profile`, and timed end to
    end through an MCP session for `mcp_queries` queries (bench/scale_e2e.py). The layout's
    projects are left in place: the caller deletes them or drops the server."""
    layout = Layout(f"bench-scale-{uuid.uuid4().hex[:6]}", projects)
    qs = corpus.queries(queries)
    warmup = corpus.queries(WARMUP_QUERIES, seed=5)
    results: dict[str, Any] = {"layout": {"projects": projects, "add_share": add_share},
                               "sizes": {}, "machine": {"cpus": os.cpu_count()}}
    for stage, size in enumerate(sizes):
        before = load_avg()
        entry: dict[str, Any] = grow(brain, layout, size, add_share, stage, server_pid)
        entry["graph"] = dict(store.graph_counts(brain.db, prefix=layout.prefix))
        entry["project_notes"] = dict(layout.have)
        reads = Reads(brain, layout)
        reads.warm(warmup, layout.others, warmup_s)
        reads.run(qs, layout.others)
        entry.update(reads.result())
        entry["ratios"] = ratios(entry)
        entry.update(measure_graph(brain, layout.largest, min(queries, 30)))
        if mcp_queries:
            entry["mcp_search"] = scale_e2e.measure(
                server_env(brain.settings), layout.largest, corpus.queries(mcp_queries),
                warmup[:10], reads.search_db_s, reads.raw_vector_s)
        entry["load_avg_1m"] = {"before": before, "after": load_avg()}
        if profile:
            entry["profile"] = profile_searches(
                brain, {"largest": layout.largest, "smallest": layout.names[-1]}, qs[0])
        results["sizes"][str(size)] = entry
        results["projects"] = layout.names
        sys.stderr.write(f"{size} notes: {entry['ratios']} load {entry['load_avg_1m']}\n")
        if save:
            save(results)
    return results


def private_run(settings: Settings,
                 run_it: Callable[[Brain, int | None], dict[str, Any]]) -> dict[str, Any]:
    """A private server on free ports in a temporary home, stopped (and its data dropped) at
    the end, whatever happens (SIGTERM included: cmd_scale turns it into an interrupt)."""
    with tempfile.TemporaryDirectory(prefix="kg-scale-") as tmp:
        server = private_server(Path(tmp) / "neo4j", settings, heap="2g", pagecache="1g")
        try:
            conn = server.start(timeout_s=300)
            private = settings.model_copy(update={
                "neo4j_uri": conn.uri, "neo4j_password": conn.password,
                "scheduler_in_server": False, "obsidian_api_key": None, "neo4j_timeout_s": 120.0,
                "obsidian_vault_path": Path(tmp) / "vault"})
            brain = Brain(private)
            try:
                return {**run_it(brain, server.running_pid()),
                        "server": f"private Neo4j {server.release()}, heap 2g, page cache 1g"}
            finally:
                brain.close()
        finally:
            server.stop()


def cmd_scale(args: argparse.Namespace, settings: Settings) -> int:
    interrupt_on_sigterm()
    logging.getLogger("neo4j").setLevel(logging.ERROR)
    sizes = sorted(int(s) for s in args.notes.split(",") if s.strip())

    def save(result: dict[str, Any]) -> None:
        emit_result(result, Path(args.out), settings)

    def run_it(brain: Brain, server_pid: int | None) -> dict[str, Any]:
        quiet_http_logs()
        result = run(brain, sizes, args.projects, args.queries, args.add_share,
                     args.warmup_seconds, args.profile, args.mcp_queries, save, server_pid)
        if args.clients:
            result["clients"] = {"at_notes": sizes[-1], **run_load(
                brain.db, server_env(brain.settings), args.clients, args.load_seconds,
                result["projects"][0])}
            save(result)
        return result

    if not args.configured:
        result = private_run(settings, run_it)
    else:
        brain = Brain(settings)
        try:
            result = {**run_it(brain, None), "server": "configured"}
            for project in result["projects"]:
                delete_bench_project(brain.db, project)
        finally:
            brain.close()
    emit_result(result, Path(args.out), settings)
    return 0


def add_parser(kinds: argparse._SubParsersAction) -> None:
    p = kinds.add_parser("scale", help="search and write latency beside their floors as one "
                                       "database grows across many projects")
    p.add_argument("--notes", default="10000,30000,100000", help="comma-separated sizes")
    p.add_argument("--projects", type=int, default=24, help="projects the notes are spread over")
    p.add_argument("--queries", type=int, default=60, help="queries timed per size")
    p.add_argument("--add-share", type=float, default=0.02,
                   help="share of each size's new notes written through add_memory (timed)")
    p.add_argument("--warmup-seconds", type=float, default=20.0,
                   help="untimed calls before timing each size")
    p.add_argument("--profile", action="store_true",
                   help="at each size, PROFILE each search in the largest and smallest project")
    p.add_argument("--mcp-queries", type=int, default=60,
                   help="at each size, search_memory calls timed end to end through one MCP "
                        "session over HTTP (0: none)")
    p.add_argument("--clients", type=int, default=0,
                   help="after the last size, this many MCP clients at once in the largest "
                        "project (0: none)")
    p.add_argument("--load-seconds", type=float, default=600.0,
                   help="how long the clients run")
    p.add_argument("--configured", action="store_true",
                   help="use the configured server (default: a private one, stopped at the end)")
    p.add_argument("--out", default="bench-scale.json")
    p.set_defaults(handler=cmd_scale)
