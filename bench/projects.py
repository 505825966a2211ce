"""Benchmark: search in one project among neighbouring projects that look alike.

Neo4j 5.26's vector index cannot filter, so a project's share of the database decides how many
of the index candidates are its own (kg_brain/store/share.py). One project of N realistic notes
is built through the bulk import, then copies of it (same texts and embeddings, fresh ids) are
added as other projects until the first holds 1/P of the notes, for each P asked. At each P it
times search_memory, deep_search and vector_search (database time) and scores vector_search's
top 10 against the exact top 10 computed from the project's embeddings, with the widening fetch
and with a fixed one (the base fetch plus the exact-scan fallback).

    python -m bench.projects [--notes 3000] [--projects 2,10,50] [--out FILE]
"""

from __future__ import annotations

import argparse
import logging
import sys
import uuid
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from bench import corpus, store
from bench.baselines import Baselines
from bench.common import delete_bench_project, emit_result
from bench.scale import TimedDatabase
from bench.scale_build import imported_on, latency_stats
from kg_brain.base.settings import load_settings
from kg_brain.domain.search import Search
from kg_brain.root.app import Brain
from kg_brain.store.notes import new_zk_id, with_fresh_ids
from kg_brain.store.share import IndexFetch

COPY_BATCH = 2_000


def _copy(brain: Brain, ids: list[str], project: str) -> None:
    for start in range(0, len(ids), COPY_BATCH):
        rows = [{"src": z, "zk_id": new_zk_id()} for z in ids[start:start + COPY_BATCH]]
        with_fresh_ids(lambda rows=rows: store.copy_notes(brain.db, rows=rows,
                                                          project=project), rows)


def _exact_top(brain: Brain, project: str, queries: list[str], k: int) -> list[list[str]]:
    rows = store.project_vectors(brain.db, project=project)
    ids = [r["zk_id"] for r in rows]
    matrix = np.asarray([r["embedding"] for r in rows], dtype=np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    qs = np.asarray(brain.embedder.encode_many(queries), dtype=np.float32)
    return [[ids[i] for i in np.argsort(-(matrix @ q))[:k]] for q in qs]


class FixedFetch(IndexFetch):
    """The base fetch whatever the project's share (the exact scan answers what the index
    leaves short): what the widening is compared with."""

    def __call__(self, project: str, want: int, base: int | None = None) -> int:
        return max(base or self.base, want)


def measure(brain: Brain, project: str, queries: list[str], exact: list[list[str]],
            widening: bool) -> dict[str, Any]:
    timed = TimedDatabase(brain.db)
    fetch = (IndexFetch if widening else FixedFetch)(timed)  # type: ignore[arg-type]
    deps = replace(brain.deps, db=timed, index_fetch=fetch)  # type: ignore[arg-type]
    search, baselines = Search(deps), Baselines(deps)
    result: dict[str, Any] = {"fetch": fetch(project, search.tuning.pool, search.tuning.fetch)}
    calls = {"search_memory": lambda q: search.search_memory(q, project, top_k=10),
             "deep_search": lambda q: search.deep_search(q, project, top_k=10),
             "vector_search": lambda q: baselines.vector_search(q, project, top_k=10)}
    found: list[list[str]] = []
    for name, call in calls.items():
        for q in queries[:5]:
            call(q)  # warm up: plans and pages
        db_time = []
        for q in queries:
            hits = call(q)
            db_time.append(timed.last_s)
            if name == "vector_search":
                found.append([h.zk_id for h in hits])
        result[name] = latency_stats(db_time)
    overlap = [len(set(f) & set(e)) / len(e) for f, e in zip(found, exact, strict=True) if e]
    result["vector_recall_at_10_vs_exact"] = round(float(np.mean(overlap)), 3)
    return result


def run(brain: Brain, notes: int, projects: list[int], queries: int,
        keep: bool) -> dict[str, Any]:
    base = f"bench-projects-{uuid.uuid4().hex[:6]}"
    made = [f"{base}-0"]
    qs = corpus.queries(queries, seed=23)
    out: dict[str, Any] = {"benchmark": "projects", "project": base, "notes_per_project": notes,
                           "results": []}
    try:
        with tqdm(total=notes, desc="import", file=sys.stderr, unit="note") as bar:
            ids = brain.importer.add_many(list(corpus.notes(notes, made[0])),
                                          progress=imported_on(bar))
        exact = _exact_top(brain, made[0], qs, 10)
        for count in sorted(projects):
            for _ in tqdm(range(len(made), count), desc=f"copies to {count} projects",
                          file=sys.stderr, unit="project"):
                made.append(f"{base}-{len(made)}")
                _copy(brain, ids, made[-1])
            entry = {"projects": count, "share": round(1 / count, 4),
                     "widening": measure(brain, made[0], qs, exact, widening=True),
                     "fixed": measure(brain, made[0], qs, exact, widening=False)}
            sys.stderr.write(f"{entry}\n")
            out["results"].append(entry)
    finally:
        if not keep:
            for project in made:
                delete_bench_project(brain.db, project)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=3_000, help="notes per project")
    parser.add_argument("--projects", default="2,10,50",
                        help="comma-separated project counts (the first project's share is 1/P)")
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--out", type=Path, default=Path("bench-results/projects.json"))
    parser.add_argument("--keep", action="store_true", help="leave the bench projects in place")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    counts = [int(p) for p in args.projects.split(",") if p.strip()]
    brain = Brain(load_settings())
    try:
        emit_result(run(brain, args.notes, counts, args.queries, args.keep), args.out)
    finally:
        brain.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
