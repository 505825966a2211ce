"""What every benchmark shares: its own projects (bench-*) and how a result is emitted."""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kg_brain.app import Brain
from kg_brain.db import Database
from kg_brain.settings import Settings
from kg_brain.store import bench

BENCH_PREFIX = "bench-"


def delete_bench_project(db: Database, project: str) -> int:
    """Remove a benchmark's own notes, their revisions, entities and queue jobs (projects named
    bench-* only, never user data), in batches of short write transactions; returns the notes
    deleted."""
    if not project.startswith(BENCH_PREFIX):
        raise ValueError("only bench-* projects are deleted")
    deleted = 0
    while batch := bench.delete_bench_project(db, project=project, batch=5_000)["deleted"]:
        deleted += batch
    bench.delete_bench_jobs(db, project=project)
    bench.delete_bench_entities(db, project=project)
    return deleted


def emit_result(result: dict[str, Any], out: Path) -> None:
    """Every benchmark's ending: the result printed on stdout and saved as JSON at `out`."""
    text = json.dumps(result, indent=2)
    sys.stdout.write(text + "\n")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text + "\n", encoding="utf-8")


def run_in_project(settings: Settings, name: str, keep: bool, out: Path,
                   run: Callable[[Brain, str], dict[str, Any]]) -> int:
    """A benchmark run on a Brain of its own in a fresh `bench-<name>-*` project, its result
    emitted; the project is deleted afterwards unless `keep`."""
    brain = Brain(settings)
    project = f"{BENCH_PREFIX}{name}-{uuid.uuid4().hex[:8]}"
    try:
        emit_result(run(brain, project), out)
    finally:
        if not keep:
            delete_bench_project(brain.db, project)
        brain.close()
    return 0


def rss_mb(pid: int) -> float | None:
    """Resident memory of a process in MB (Linux)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    kb = next((int(line.split()[1]) for line in status.splitlines()
               if line.startswith("VmRSS:")), None)
    return None if kb is None else round(kb / 1024, 1)
