"""Benchmark: archive_stale_notes (dry run, then apply) over a large synthetic graph.

Inserts N synthetic notes (default 100,000) into a dedicated `bench-archive-*` project: ages
spread over 180 days, a skewed access distribution, a few pinned notes, some inbound links, and
random unit vectors (archival never reads them). Times the dry run, the apply and a decay
report, prints the figures as JSON and saves them; the bench project is deleted afterwards
unless --keep.

    python -m bench.archive [--notes 100000] [--out bench-results/archive.json]
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
import uuid
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from bench.common import delete_bench_project, emit_result
from kg_brain.base.clock import utc_now
from kg_brain.base.settings import load_settings
from kg_brain.root.app import Brain, connect
from kg_brain.store.db import Database
from kg_brain.store.links import merge_links
from kg_brain.store.notes import create_notes, new_zk_id, with_fresh_ids

log = logging.getLogger("bench.archive")
BATCH = 2_000
LINKED_SHARE = 0.05


def synthetic_rows(rng: np.random.Generator, project: str, count: int,
                   now: datetime) -> list[dict[str, Any]]:
    ages = rng.uniform(0, 180, count)
    accesses = rng.choice([0, 1, 2, 5, 12], size=count, p=[0.6, 0.2, 0.1, 0.07, 0.03])
    vectors = rng.standard_normal((count, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    rows = []
    for i in range(count):
        created = now - timedelta(days=float(ages[i]))
        row: dict[str, Any] = {
            "zk_id": new_zk_id(), "title": f"synthetic note {i}", "content": f"synthetic {i}",
            "context": "", "keywords": [], "tags": ["bench"], "memory_type": "permanent",
            "note_kind": "general", "pinned": bool(rng.random() < 0.02), "project": project,
            "created": created, "updated": created, "access_count": int(accesses[i]),
            "embedding": vectors[i].tolist(),
        }
        if accesses[i]:
            row["last_accessed"] = created + timedelta(days=float(rng.uniform(0, ages[i])))
        rows.append(row)
    return rows


def populate(db: Database, project: str, notes: int, now: datetime, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    ids: list[str] = []
    for start in range(0, notes, BATCH):
        rows = synthetic_rows(rng, project, min(BATCH, notes - start), now)
        ids += _insert(db, rows)
    linked = rng.choice(len(ids), size=int(len(ids) * LINKED_SHARE), replace=False)
    links = [{"src": ids[int(rng.integers(len(ids)))], "dst": ids[int(i)], "type": "RELATES_TO",
              "reason": "bench", "weight": 0.7} for i in linked]
    for start in range(0, len(links), 10 * BATCH):
        merge_links(db, rows=links[start:start + 10 * BATCH], now=now)
    return ids


def _insert(db: Database, rows: list[dict[str, Any]]) -> list[str]:
    return with_fresh_ids(lambda: [r["zk_id"] for r in create_notes(db, rows=rows)], rows)


def timed(fn: Any) -> tuple[Any, float]:
    began = time.perf_counter()
    result = fn()
    return result, round(time.perf_counter() - began, 3)


def run(notes: int, seed: int, keep: bool) -> dict[str, Any]:
    settings = load_settings(neo4j_timeout_s=300)
    db = connect(settings)
    project = f"bench-archive-{uuid.uuid4().hex[:8]}"
    now = utc_now()
    lifecycle = Brain(settings, db=db, clock=lambda: now).lifecycle
    try:
        _, insert_s = timed(lambda: populate(db, project, notes, now, seed))
        dry, dry_s = timed(lambda: lifecycle.archive_stale(dry_run=True, project=project))
        report, report_s = timed(lambda: lifecycle.decay_report(limit=20, project=project))
        applied, apply_s = timed(lambda: lifecycle.archive_stale(dry_run=False, project=project))
        again, again_s = timed(lambda: lifecycle.archive_stale(dry_run=True, project=project))
        return {
            "benchmark": "archive_stale_notes", "notes": notes, "project": project,
            "server_version": db.server_version(), "insert_s": insert_s,
            "dry_run_s": dry_s, "candidates": dry.total,
            "apply_s": apply_s, "archived": applied.archived,
            "dry_run_after_apply_s": again_s, "candidates_after_apply": again.total,
            "decay_report_s": report_s, "decay_report_rows": len(report),
            "target_s": 3.0, "within_target": dry_s < 3.0 and apply_s < 3.0,
        }
    finally:
        if not keep:
            delete_bench_project(db, project)
        db.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=Path("bench-results/archive.json"))
    parser.add_argument("--keep", action="store_true", help="leave the bench project in place")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    result = run(args.notes, args.seed, args.keep)
    emit_result(result, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
