"""Benchmark programs: retrieval quality (LoCoMo, MuSiQue), speed at scale, and reports."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kg_brain.db import Database

BENCH_PREFIX = "bench-"


def delete_bench_project(db: Database, project: str) -> int:
    """Remove a benchmark's own notes (projects named bench-* only, never user data), in
    batches of short write transactions; returns how many were deleted."""
    if not project.startswith(BENCH_PREFIX):
        raise ValueError("only bench-* projects are deleted")
    deleted = 0
    while batch := int(db.write("bench/delete_bench_project", project=project,
                                batch=5_000)[0]["deleted"]):
        deleted += batch
    return deleted


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """`kg-brain bench retrieval|scale|report`."""
    from kg_brain.bench import report, retrieval, scale

    bench = sub.add_parser("bench", help="benchmarks: retrieval quality, speed, reports")
    kinds = bench.add_subparsers(dest="bench_kind", required=True)
    retrieval.add_parser(kinds)
    scale.add_parser(kinds)
    report.add_parser(kinds)
