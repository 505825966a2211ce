"""Benchmark programs: retrieval quality (LoCoMo, MuSiQue, the coding set), speed at scale,
reports."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kg_brain.db import Database

BENCH_PREFIX = "bench-"


def delete_bench_project(db: Database, project: str) -> int:
    """Remove a benchmark's own notes, their revisions and queue jobs (projects named bench-*
    only, never user data), in batches of short write transactions; returns the notes deleted."""
    if not project.startswith(BENCH_PREFIX):
        raise ValueError("only bench-* projects are deleted")
    deleted = 0
    while batch := int(db.write("bench/delete_bench_project", project=project,
                                batch=5_000)[0]["deleted"]):
        deleted += batch
    db.write("bench/delete_bench_jobs", project=project)
    return deleted


def emit_result(result: dict[str, Any], out: Path) -> None:
    """Every benchmark's ending: the result printed on stdout and saved as JSON at `out`."""
    text = json.dumps(result, indent=2)
    sys.stdout.write(text + "\n")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text + "\n", encoding="utf-8")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """`kg-brain bench retrieval|scale|report`."""
    from kg_brain.bench import report, retrieval, scale

    bench = sub.add_parser("bench", help="benchmarks: retrieval quality, speed, reports")
    kinds = bench.add_subparsers(dest="bench_kind", required=True)
    retrieval.add_parser(kinds)
    scale.add_parser(kinds)
    report.add_parser(kinds)
