"""`kg-brain bench scale`: write and read paths at growing corpus sizes, one project per size.

Each corpus is built from realistic synthetic notes through the real bulk import, timed against
raw batched embedding in the same run. A local server's resident memory and its database size on
disk are taken next (it is restarted for that). After --warmup-seconds of untimed searches, so
the restarted server is measured in its steady state, it times add_memory (heuristic
enricher), search_memory and deep_search (total and database time), one raw
`db.index.vector.queryNodes` call, get_related depth 2 and an archive dry run; at the end, the
MCP server's cold start and resident memory. Numbers are printed and saved as JSON.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from tqdm import tqdm

from bench import corpus, store
from bench.cold_start import measure_once
from bench.common import delete_bench_project, rss_mb
from kg_brain.app import Brain
from kg_brain.db import Database, Mode
from kg_brain.localdb import docker_engine_available, local_server
from kg_brain.memory.text import embed_text
from kg_brain.search import Search
from kg_brain.settings import Settings
from kg_brain.vocab import VECTOR_INDEX

WARMUP_ADDS = 20
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
            changes: tuple[str, ...] = (), matched: tuple[str, ...] = ()) -> Any:
        began = time.perf_counter()
        try:
            return self._db.run(name, mode, params, changes, matched)
        finally:
            self.last_s = time.perf_counter() - began


def latency_stats(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"p50_ms": round(statistics.median(ordered) * 1000, 2), "p95_ms": round(p95 * 1000, 2),
            "n": len(ordered)}


def seconds(fn: Callable[[], Any]) -> float:
    began = time.perf_counter()
    fn()
    return time.perf_counter() - began


def measure_import(brain: Brain, size: int, project: str) -> dict[str, Any]:
    """Raw batched embedding is timed on a sample of the same notes twice: on their content,
    and on the text the import embeds for each (title + content + context, about twice as
    long); the import ratio is taken against the latter, the same work done bare."""
    records = list(corpus.notes(size, project))
    sample = records[: min(size, 2000)]
    brain.embedder.encode_many([r["content"] for r in sample[:64]])  # load and warm the model
    content_s = seconds(lambda: brain.embedder.encode_many([r["content"] for r in sample]))
    rows = [brain.importer.import_row(r) for r in sample]
    texts = [embed_text(r["title"], r["content"], r["context"]) for r in rows]
    embed_s = seconds(lambda: brain.embedder.encode_many(texts))
    with tqdm(total=size, desc=f"import {size}", file=sys.stderr, unit="note") as bar:
        import_s = seconds(lambda: brain.importer.add_many(records, progress=bar.update))
    raw_rate = len(sample) / embed_s
    import_rate = size / import_s
    return {"embedding_runtime": brain.embedder.runtime,
            "raw_embedding_content_notes_per_s": round(len(sample) / content_s, 1),
            "raw_embedding_notes_per_s": round(raw_rate, 1),
            "bulk_import_notes_per_s": round(import_rate, 1),
            "import_to_raw_ratio": round(import_rate / raw_rate, 3)}


def warm_up(brain: Brain, project: str, queries: list[str], duration_s: float) -> None:
    """Untimed searches for `duration_s`: a freshly restarted server answers 1.5-2x slower after a
    few dozen calls than once its JIT compiler has seen thousands."""
    search = brain.search
    deadline = time.monotonic() + duration_s
    for query in itertools.cycle(queries):
        if time.monotonic() > deadline:
            return
        search.search_memory(query, project, top_k=10)
        search.deep_search(query, project, hops=2, top_k=10)


def measure_adds(brain: Brain, size: int, project: str, adds: int) -> dict[str, Any]:
    """add_memory with the heuristic enricher; the first WARMUP_ADDS calls are not timed."""
    writer = brain.writer
    fresh = [r["content"] + f" (case {i})" for i, r in
             enumerate(corpus.notes(WARMUP_ADDS + adds, project, seed=size + 99))]
    for text in fresh[:WARMUP_ADDS]:
        writer.add(text, project)
    add_lat = [seconds(lambda t=t: writer.add(t, project)) for t in fresh[WARMUP_ADDS:]]
    return {"add_memory": latency_stats(add_lat)}


def measure_reads(brain: Brain, project: str, queries: list[str],
                  warmup: list[str]) -> dict[str, Any]:
    """Each call is warmed up on other queries first, so query planning, the JIT compiler of
    a freshly restarted server and the first page loads are not timed."""
    timed = TimedDatabase(brain.db)
    search = Search(replace(brain.deps, db=timed))  # type: ignore[arg-type]
    result: dict[str, Any] = {}
    for name, call in (("search_memory", lambda q: search.search_memory(q, project, top_k=10)),
                       ("deep_search", lambda q: search.deep_search(q, project, hops=2, top_k=10))):
        for q in warmup:
            call(q)
        total, db_time = [], []
        for q in queries:
            total.append(seconds(lambda q=q, call=call: call(q)))
            db_time.append(timed.last_s)
        result[name] = {"total": latency_stats(total), "db": latency_stats(db_time)}
    def raw_query(vector: list[float]) -> float:
        return seconds(lambda: store.raw_vector_query(brain.db, index=VECTOR_INDEX, k=10,
                                                      vector=vector))

    for v in brain.embedder.encode_many(warmup):
        raw_query(v)
    raw = [raw_query(v) for v in brain.embedder.encode_many(queries)]
    result["raw_vector_query"] = latency_stats(raw)
    result["deep_to_raw_ratio"] = round(result["deep_search"]["db"]["p50_ms"]
                                        / max(result["raw_vector_query"]["p50_ms"], 1e-6), 2)
    return result


def measure_graph(brain: Brain, project: str, samples: int) -> dict[str, Any]:
    ids = [h.zk_id for h in brain.search.search_memory("retry backoff failure", project, top_k=20)]
    rng = random.Random(3)
    picks = [rng.choice(ids) for _ in range(samples)] if ids else []
    related = [seconds(lambda z=z: brain.search.get_related(z, depth=2)) for z in picks]
    archive = [seconds(lambda: brain.lifecycle.archive_stale(dry_run=True, project=project))
               for _ in range(3)]
    return {"get_related_depth2": latency_stats(related) if related else None,
            "archive_dry_run": latency_stats(archive)}


def _footprint(settings: Settings) -> dict[str, Any] | None:
    """The local server's resident memory, then the bytes on disk of its `neo4j` database:
    store files (records and indexes) and transaction logs (preallocated, rotated, pruned)
    apart. The server is restarted in between: Community Edition has no checkpoint procedure,
    and until a checkpoint the store files lag behind the data. None for a server the bench
    does not manage."""
    if settings.neo4j_uri or docker_engine_available():
        return None
    server = local_server(settings)
    pid = server.running_pid()
    rss = rss_mb(pid) if pid is not None else None
    if server.stop():
        server.start()
    data = server.home / "data"

    def size(root: Path) -> int:
        return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())

    return {"store_bytes": size(data / "databases" / "neo4j"),
            "transaction_log_bytes": size(data / "transactions" / "neo4j"),
            "neo4j_rss_mb": rss}


def run(brain: Brain, sizes: list[int], queries: int, adds: int, keep: bool,
        warmup_s: float) -> dict[str, Any]:
    qs = corpus.queries(queries)
    warmup = corpus.queries(WARMUP_QUERIES, seed=5)
    results: dict[str, Any] = {"sizes": {}, "machine": {"cpus": os.cpu_count()}}
    for size in sizes:
        project = f"bench-scale-{size}-{uuid.uuid4().hex[:6]}"
        entry = measure_import(brain, size, project)
        entry["footprint"] = _footprint(brain.settings)  # restarts a local server
        warm_up(brain, project, warmup, warmup_s)
        entry.update(measure_adds(brain, size, project, adds))
        entry.update(measure_reads(brain, project, qs, warmup))
        entry.update(measure_graph(brain, project, min(queries, 50)))
        results["sizes"][str(size)] = entry
        sys.stderr.write(json.dumps({size: entry}) + "\n")
        if not keep:
            delete_bench_project(brain.db, project)
    results["cold_start"] = measure_once({**os.environ, "SCHEDULER_IN_SERVER": "false"},
                                         Path.cwd())
    results["machine"]["load_avg_1m"] = round(os.getloadavg()[0], 2)
    return results


def cmd_scale(args: argparse.Namespace, settings: Settings) -> int:
    brain = Brain(settings)
    try:
        sizes = [int(s) for s in args.notes.split(",") if s.strip()]
        result = run(brain, sizes, args.queries, args.adds, args.keep, args.warmup_seconds)
    finally:
        brain.close()
    text = json.dumps(result, indent=2)
    sys.stdout.write(text + "\n")
    Path(args.out).write_text(text + "\n", encoding="utf-8")
    return 0


def add_parser(kinds: argparse._SubParsersAction) -> None:
    p = kinds.add_parser("scale", help="write/read latency and throughput at growing sizes")
    p.add_argument("--notes", default="1000,10000,100000", help="comma-separated corpus sizes")
    p.add_argument("--queries", type=int, default=100)
    p.add_argument("--adds", type=int, default=50, help="add_memory calls timed per size")
    p.add_argument("--warmup-seconds", type=float, default=45.0,
                   help="untimed searches before timing each size")
    p.add_argument("--keep", action="store_true", help="keep the bench projects afterwards")
    p.add_argument("--out", default="bench-scale.json")
    p.set_defaults(handler=cmd_scale)
