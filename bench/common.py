"""What every benchmark shares: its own projects (bench-*) and how a result is emitted."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench import store
from kg_brain.base.settings import Settings, load_settings
from kg_brain.root.app import Brain
from kg_brain.store.db import Database

BENCH_PREFIX = "bench-"
# every run that scores a check split appends a line here (record_check_run)
LEDGER_PATH = "docs/bench/check-ledger.jsonl"
LEDGER = Path(__file__).resolve().parent.parent / LEDGER_PATH


def delete_bench_project(db: Database, project: str) -> int:
    """Remove a benchmark's own notes, their revisions, entities, queue jobs and plugin records
    (projects named bench-* only, never user data), in batches of short write transactions;
    returns the notes deleted."""
    if not project.startswith(BENCH_PREFIX):
        raise ValueError("only bench-* projects are deleted")
    deleted = 0
    while batch := store.delete_bench_project(db, project=project, batch=5_000)["deleted"]:
        deleted += batch
    store.delete_bench_jobs(db, project=project)
    store.delete_bench_plugin_records(db, project=project)
    store.delete_bench_entities(db, project=project)
    return deleted


def run_id(given: str | None) -> str:
    """The id a run's project names carry: `given`, else a random one. The heuristic enricher
    names the project in every note's context, which is embedded, so two writes of the same data
    store the same vectors only under the same project name: a fixed id, one write after the
    other (write_into refuses a project that holds notes)."""
    return given or uuid.uuid4().hex[:8]


def write_into(db: Database, project: str) -> str:
    """`project`, after checking it holds no note: a write into another run's notes would mix
    the two."""
    if store.stress_note_counts(db, project=project)["notes"]:
        raise ValueError(f"{project} already holds notes: another run writes there (give "
                         "another --run-id, or wait for it)")
    return project


def emit_result(result: dict[str, Any], out: Path, settings: Settings | None = None) -> None:
    """Every benchmark's ending: the result printed on stdout and saved as JSON at `out`, with
    what reproduces it (see `provenance`; `out` itself is no uncommitted change: a bench that
    saves its result after each step rewrites it)."""
    result = {**result, "provenance": provenance(settings or load_settings(), out)}
    text = json.dumps(result, indent=2, default=str)
    sys.stdout.write(text + "\n")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text + "\n", encoding="utf-8")


def provenance(settings: Settings, out: Path | None = None) -> dict[str, Any]:
    """The commit of the checkout that ran (and whether it had uncommitted changes, the result
    file `out` aside), the command line and the settings in force; secrets (the fields kept out
    of repr) are left out."""
    return {**_checkout(out), "command": command(),
            "settings": {name: value for name, value in settings.model_dump().items()
                         if type(settings).model_fields[name].repr}}


def record_check_run(suite: str, split: str, data: list[str], out: Path | None,
                     ledger: Path = LEDGER) -> dict[str, Any]:
    """A run that scored a check split says so, whether or not its result is kept: one line
    appended to the ledger (date, commit, suite, split, the data scored, the command, the
    result's path or None). docs/BENCHMARKS.md counts each check split's scorings from these
    lines and the provenance of docs/bench/*.json. Returns the line."""
    line = {"date": datetime.now(UTC).isoformat(timespec="seconds"), **_checkout(),
            "suite": suite, "split": split, "data": data, "command": command(),
            "out": None if out is None else str(out)}
    ledger.parent.mkdir(parents=True, exist_ok=True)
    with ledger.open("a", encoding="utf-8") as file:
        file.write(json.dumps(line) + "\n")
    return line


def _checkout(out: Path | None = None) -> dict[str, Any]:
    """The commit that runs and whether tracked files differ from it (the ledger and the
    result file `out` aside: a run appending to one or rewriting the other changes no code)."""
    top = _git("rev-parse", "--show-toplevel")
    inside = out is not None and top is not None and out.resolve().is_relative_to(top)
    aside = [f":(exclude){out.resolve()}"] if inside and out is not None else []
    changed = _git("status", "--porcelain", "--untracked-files=no", "--", ":/",
                   f":(top,exclude){LEDGER_PATH}", *aside)
    return {"commit": _git("rev-parse", "HEAD"), "uncommitted_changes": bool(changed)}


def command() -> str:
    """The command line that ran: `python -m bench.<program> ...` for a program run as a module
    (argv[0] is then its file), else the script's name (`kg-brain bench ...`)."""
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    if spec is not None and spec.name.startswith("bench."):
        return shlex.join(["python", "-m", spec.name, *sys.argv[1:]])
    return shlex.join([Path(sys.argv[0]).name, *sys.argv[1:]])


def _git(*args: str) -> str | None:
    """A git answer about the checkout this package runs from; None outside a checkout."""
    try:
        done = subprocess.run(["git", *args], cwd=Path(__file__).parent, capture_output=True,
                              text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def run_in_project(settings: Settings, name: str, keep: bool, out: Path,
                   run: Callable[[Brain, str], dict[str, Any]]) -> int:
    """A benchmark run on a Brain of its own in a fresh `bench-<name>-*` project, its result
    emitted; the project is deleted afterwards unless `keep`."""
    brain = Brain(settings)
    project = f"{BENCH_PREFIX}{name}-{uuid.uuid4().hex[:8]}"
    try:
        emit_result(run(brain, project), out, settings)
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
