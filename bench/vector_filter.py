"""Where Neo4j 2026's vector index filtered on the project pays, by the project's size, on one
private server of the 2026 line (NEO4J_VERSION, JAVA_HOME of a Java 21+), one database of
projects of --sizes notes (default SIZES). For each query (search_memory's vector channel: POOL
notes of the project, cypher/bench/vector_notes.cypher) in each project: (a) the 2026 statement
(the index filtered on the project, fetch as kg_brain/store/share.py gives it on the 2026 line,
the exact scan never taken), (b) the common statement on the same server (the unfiltered index
over-fetched by the project's share, as on 5.26; its own exact scan when the fetch would pass
the ceiling or the project's notes come short), (c) the exact scan alone (fetch 0) and (d) one
raw vector query (10 nearest, unfiltered). The four calls of one query run in a rotating order,
so the machine's load falls on all of them alike; per project the paired medians of (a), (b)
and (c) over (d) and of (a) over (c), and how often (a) and (b) answered the scan's notes.

    NEO4J_VERSION='[2026.01.0,2027.0.0)' JAVA_HOME=$(scripts/java-home.sh 21) \\
        python -m bench.vector_filter --out docs/bench/vector-filter-10k.json
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from bench import corpus, store
from bench.common import emit_result
from bench.scale import load_avg, private_run
from bench.scale_build import latency_stats, seconds
from kg_brain.base.settings import Settings
from kg_brain.base.vocab import VECTOR_INDEX
from kg_brain.domain.ranking import Tuning
from kg_brain.root.app import Brain, interrupt_on_sigterm
from kg_brain.store.db import Database
from kg_brain.store.share import IndexFetch

SIZES = (50, 200, 350, 650, 1_000, 2_500, 5_000)
POOL = Tuning().pool  # search_memory's vector channel at top_k 10
BASE = Tuning().fetch
WARMUP_ROUNDS = 1
CALLS = ("filtered", "common", "scan", "raw_vector_query")


def common_view(db: Database) -> Database:
    """`db` running the common statements (5.26's) on whatever server it is connected to."""
    view = db.bound()
    view._line = None  # the line a Database otherwise reads from its server's version
    return view


def measure(brain: Brain, common: Database, project: str,
            vectors: list[list[float]], rounds: int) -> dict[str, Any]:
    """Each call's latency, the paired ratios, the fetches and the answers' agreement."""
    filtered_fetch = IndexFetch(brain.db)(project, POOL, BASE)
    common_fetch = IndexFetch(common)(project, POOL, BASE)
    rescan = IndexFetch(common).rescans(project)

    def nearest(db: Database, fetch: int, vector: list[float]) -> list[str]:
        return [h["zk_id"] for h in store.vector_notes(
            db, vector=vector, project=project, excluded=[], fetch=fetch, rescan=rescan, k=POOL)]

    calls: list[dict[str, Callable[[], Any]]] = [{
        "filtered": partial(nearest, brain.db, filtered_fetch, v),
        "common": partial(nearest, common, common_fetch, v),
        "scan": partial(nearest, brain.db, 0, v),
        "raw_vector_query": partial(store.raw_vector_query, brain.db, index=VECTOR_INDEX,
                                    k=10, vector=v)} for v in vectors]
    samples: dict[str, list[float]] = {name: [] for name in CALLS}
    for r in range(WARMUP_ROUNDS + rounds):
        for i, call in enumerate(calls):
            shift = (i + r) % len(CALLS)
            for name in CALLS[shift:] + CALLS[:shift]:
                took = seconds(call[name])
                if r >= WARMUP_ROUNDS:
                    samples[name].append(took)
    same = {"filtered": 0, "common": 0}
    for call in calls:
        exact = set(call["scan"]())
        for name in same:
            same[name] += set(call[name]()) == exact

    def paired(top: str, bottom: str) -> float:
        return round(statistics.median(
            [a / b for a, b in zip(samples[top], samples[bottom], strict=True)]), 3)

    raw = "raw_vector_query"
    return {"fetch": {"filtered": filtered_fetch, "common": common_fetch},
            "latency": {name: latency_stats(values) for name, values in samples.items()},
            "to_raw": {name: paired(name, raw) for name in CALLS if name != raw},
            "filtered_to_scan": paired("filtered", "scan"),
            "common_to_scan": paired("common", "scan"),
            "filtered_to_common": paired("filtered", "common"),
            "same_notes_as_scan": {name: f"{n}/{len(calls)}" for name, n in same.items()}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)),
                    help="the projects' notes, comma-separated")
    ap.add_argument("--queries", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--out", default="docs/bench/vector-filter.json")
    args = ap.parse_args(argv)
    interrupt_on_sigterm()
    logging.getLogger("neo4j").setLevel(logging.ERROR)
    settings = Settings()

    def run_it(brain: Brain, _pid: int | None) -> dict[str, Any]:
        if brain.db.line is None:
            raise SystemExit("the server is not of Neo4j's 2026 line: set NEO4J_VERSION")
        records: list[dict[str, Any]] = []
        sizes = sorted(int(s) for s in args.sizes.split(",") if s.strip())
        projects = {f"vector-filter-{size}": size for size in sizes}
        for p, (project, size) in enumerate(projects.items()):
            records += corpus.notes(size, project, seed=20_000 + p)
        brain.importer.add_many(records)
        vectors = [brain.embedder.encode(q) for q in corpus.queries(args.queries)]
        common = common_view(brain.db)
        result: dict[str, Any] = {"notes": len(records), "queries": args.queries,
                                  "rounds": args.rounds, "pool": POOL, "projects": {}}
        before = load_avg()
        for project, size in projects.items():
            entry = measure(brain, common, project, vectors, args.rounds)
            result["projects"][str(size)] = entry
            sys.stderr.write(f"{project}: {entry['to_raw']} filtered/scan "
                             f"{entry['filtered_to_scan']} same {entry['same_notes_as_scan']}\n")
        result["load_avg_1m"] = {"before": before, "after": load_avg(), "cpus": os.cpu_count()}
        return result

    emit_result(private_run(settings, run_it), Path(args.out), settings)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
