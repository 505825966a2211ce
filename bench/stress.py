"""Concurrency stress: N real stdio MCP servers (N OpenCode windows) write and search one project.

    python -m bench.stress --processes 8 --notes 250 [--out stress.json]
    python -m bench.stress --processes 1,2,4 --notes 100     (scale-out, one run each)

Each process is `python mcp_server.py` with the scheduler off, driven over stdio; each adds its
notes with add_memory and runs a search_memory after every add, all in one fresh project on the
configured Neo4j (NEO4J_URI etc.). Afterwards the evolution queue of that project is drained by
several workers at once, and the graph is checked: every note written once (none lost, none
merged, no duplicate id), every link a response reported exists, no note half-written, no error
surfaced to a client, every evolution job done exactly once. Prints and saves JSON.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import corpus, store
from bench.cold_start import SERVER, StdioSession
from kg_brain.base.settings import load_settings
from kg_brain.root.app import Brain

log = logging.getLogger(__name__)
DRAIN_BATCH = 20


def note_texts(process: int, count: int, seed: int = 0) -> list[tuple[str, str]]:
    """(content, note_kind) pairs: three facts of different kinds per note, so no two notes are
    near-duplicates (measured max cosine ~0.91 over 2,000 two-fact notes; three facts go lower)."""
    r = random.Random(f"{seed}:{process}")
    kinds = list(corpus.KINDS)
    out = []
    for _ in range(count):
        chosen = r.sample(kinds, 3)
        out.append((" ".join(corpus.KINDS[k](r) for k in chosen), chosen[0]))
    return out


@dataclass
class WorkerLog:
    """What one client saw: every saved note, every link reported, every error, latencies."""

    process: int
    saved: list[dict[str, Any]] = field(default_factory=list)
    links: list[dict[str, str]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    add_s: list[float] = field(default_factory=list)
    search_s: list[float] = field(default_factory=list)
    stderr: str = ""


def _call(session: StdioSession, tool: str, args: dict[str, Any], log_: WorkerLog,
          timings: list[float]) -> dict[str, Any] | None:
    began = time.monotonic()
    reply = session.call_tool(tool, args)
    timings.append(time.monotonic() - began)
    result = reply.get("result") or {}
    if "error" in reply or result.get("isError"):
        text = (result.get("content") or [{}])[0].get("text") if result else reply["error"]
        log_.errors.append(f"{tool}: {text}")
        return None
    return dict(result.get("structuredContent") or {})


def _record_save(saved: dict[str, Any], log_: WorkerLog) -> None:
    log_.saved.append({k: saved.get(k) for k in ("zk_id", "deduplicated", "evolution_queued")})
    for link in saved.get("links") or []:
        src, dst = saved["zk_id"], link["zk_id"]
        if link.get("direction") == "in":
            src, dst = dst, src
        log_.links.append({"src": src, "dst": dst, "type": link["type"]})


def run_worker(log_: WorkerLog, env: dict[str, str], cwd: Path, project: str, notes: int,
               seed: int, ready: threading.Barrier) -> None:
    """One OpenCode window: warm up, wait for the others, then add + search `notes` times."""
    texts = note_texts(log_.process, notes, seed)
    queries = corpus.queries(notes, seed=log_.process + 1)
    with StdioSession(SERVER, env, cwd) as session:
        session.initialize()
        session.request("tools/list", {})
        _call(session, "search_memory", {"query": "warm up", "project": project, "top_k": 1},
              log_, [])
        ready.wait()
        for (content, kind), query in zip(texts, queries, strict=True):
            saved = _call(session, "add_memory", {"content": content, "project": project,
                                                  "note_kind": kind}, log_, log_.add_s)
            if saved:
                _record_save(saved, log_)
            _call(session, "search_memory", {"query": query, "project": project, "top_k": 5},
                  log_, log_.search_s)
        log_.stderr = session.close()
        if session.proc.returncode != 0:
            log_.errors.append(f"server exited with {session.proc.returncode}")


def write_phase(processes: int, notes: int, env: dict[str, str], project: str,
                seed: int) -> tuple[list[WorkerLog], float]:
    """All clients at once; the clock starts when every server is connected and warm."""
    logs = [WorkerLog(i) for i in range(processes)]
    ready = threading.Barrier(processes + 1)
    with tempfile.TemporaryDirectory(prefix="kg-stress-") as cwd:
        threads = [threading.Thread(target=_guarded, args=(run_worker, lg, env, Path(cwd),
                                                          project, notes, seed, ready))
                   for lg in logs]
        for t in threads:
            t.start()
        try:
            ready.wait(timeout=600)
        except threading.BrokenBarrierError:
            pass  # a client failed to start: recorded in its log
        began = time.monotonic()
        for t in threads:
            t.join()
    return logs, time.monotonic() - began


def _guarded(fn: Any, log_: WorkerLog, *args: Any) -> None:
    """A worker that breaks reports it instead of hanging the barrier for the others."""
    ready: threading.Barrier = args[-1]
    try:
        fn(log_, *args)
    except Exception as exc:  # noqa: BLE001 - a broken client is a finding, in the report
        log_.errors.append(f"client failed: {type(exc).__name__}: {exc}")
        ready.abort()


class Drain:
    """Several drainers race over the project's queue, as several schedulers would; they stop
    once the writers are done and the queue is empty."""

    def __init__(self, brain: Brain, project: str, workers: int) -> None:
        self.brain, self.project = brain, project
        self.writes_done = threading.Event()
        self.done: list[int] = []
        self.errors: list[str] = []
        self.threads = [threading.Thread(target=self._work) for _ in range(workers)]
        self.began = 0.0

    def start(self) -> Drain:
        self.began = time.monotonic()
        for t in self.threads:
            t.start()
        return self

    def _work(self) -> None:
        evolution = self.brain.evolution
        try:
            while True:
                n = evolution.process(DRAIN_BATCH, project=self.project)
                self.done.append(n)
                if not n and self.writes_done.is_set():
                    return
                if not n:
                    time.sleep(1.0)
        except Exception as exc:  # noqa: BLE001 - recorded: a dead drainer leaves jobs pending
            self.errors.append(f"{type(exc).__name__}: {exc}")

    def finish(self) -> dict[str, Any]:
        self.writes_done.set()
        for t in self.threads:
            t.join()
        return {"jobs_completed": sum(self.done), "drain_workers": len(self.threads),
                "drain_s": round(time.monotonic() - self.began, 2), "errors": self.errors}


def verify(brain: Brain, project: str, logs: list[WorkerLog], expected: int,
           drained: dict[str, Any]) -> dict[str, Any]:
    """The graph against what the clients were told (job states only when a drain ran)."""
    db = brain.db
    saved = [s for lg in logs for s in lg.saved]
    ids = Counter(s["zk_id"] for s in saved if not s["deduplicated"])
    counts = store.stress_note_counts(db, project=project)
    reported = [link for lg in logs for link in lg.links]
    missing = store.stress_missing_links(db, rows=reported) if reported else []
    links = store.stress_link_counts(db, project=project)
    jobs = store.stress_jobs(db, project=project, kind="evolve")
    queued = {f"evolve:{s['zk_id']}" for s in saved if s["evolution_queued"]}
    revisions = store.stress_revisions(db, project=project)
    twice = [r["zk_id"] for r in revisions
             if any(n > 1 for c, n in Counter(r["causes"]).items() if c.startswith("evolution"))]
    gaps = [r["zk_id"] for r in revisions
            if sorted(r["versions"]) != list(range(1, len(r["versions"]) + 1))]
    checks = {
        "notes_expected": expected, "notes_in_graph": counts["notes"],
        "dedup_hits": sum(1 for s in saved if s["deduplicated"]),
        "duplicate_ids": counts["notes"] - counts["distinct_ids"]
        + sum(n - 1 for n in ids.values() if n > 1),
        "notes_without_embedding": counts["without_embedding"],
        "links_reported": len(reported), "links_lost": len(missing),
        "links_in_graph": links["links"], "links_foreign_or_partial": links["foreign_or_partial"],
        "client_errors": sum(len(lg.errors) for lg in logs),
        "jobs_queued": len(queued), "jobs_total": len(jobs),
        "jobs_not_done": sum(1 for j in jobs if j["state"] != "done")
        if drained["drain_workers"] else None,
        "drain_errors": len(drained["errors"]),
        "jobs_missing": len(queued - {j["key"] for j in jobs}),
        "notes_rewritten": len(revisions), "jobs_applied_twice": len(twice),
        "revision_version_gaps": len(gaps),
    }
    checks["ok"] = (checks["notes_in_graph"] == expected == len(ids) and not any(
        checks[k] for k in ("duplicate_ids", "notes_without_embedding", "links_lost",
                            "links_foreign_or_partial", "client_errors", "jobs_not_done",
                            "drain_errors",
                            "jobs_missing", "jobs_applied_twice", "revision_version_gaps")))
    return checks


def _percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {}
    ordered = sorted(values)
    return {"p50_ms": round(statistics.median(ordered) * 1000, 1),
            "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))] * 1000, 1)}


def run_once(brain: Brain, env: dict[str, str], processes: int, notes: int,
             project: str | None = None, drain_workers: int = 3, seed: int = 0,
             drain_during: bool = False) -> dict[str, Any]:
    """One stress run in a fresh project; returns the report (report["checks"]["ok"]).
    The evolution queue drains after the writes, or during them with `drain_during`."""
    project = project or f"stress-{uuid.uuid4().hex[:10]}"
    env = {**env, "SCHEDULER_IN_SERVER": "false", "KG_BRAIN_PROJECT": project}
    drainer = Drain(brain, project, drain_workers)
    if drain_during:
        drainer.start()
    logs, wall = write_phase(processes, notes, env, project, seed)
    drained = (drainer if drain_during else drainer.start()).finish()
    checks = verify(brain, project, logs, processes * notes, drained)
    adds = [t for lg in logs for t in lg.add_s]
    searches = [t for lg in logs for t in lg.search_s]
    return {
        "project": project, "processes": processes, "notes_per_process": notes,
        "write_phase_s": round(wall, 2),
        "notes_per_s": round(len(adds) / wall, 2) if wall else None,
        "searches_per_s": round(len(searches) / wall, 2) if wall else None,
        "add_memory": _percentiles(adds), "search_memory": _percentiles(searches),
        "evolution": drained, "checks": checks,
        "errors": [e for lg in logs for e in lg.errors][:20],
        "server_tracebacks": sum(lg.stderr.count("Traceback") for lg in logs),
    }


def _process_counts(text: str) -> list[int]:
    counts = [int(p) for p in text.split(",") if p.strip()]
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError("use positive integers, e.g. 8 or 1,2,4")
    return counts


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=_process_counts, default=[8],
                        help="server processes; a comma list runs once per count (scale-out)")
    parser.add_argument("--notes", type=int, default=250, help="notes added per process")
    parser.add_argument("--drain-workers", type=int, default=3,
                        help="concurrent evolution drainers; 0 skips the drain (throughput runs)")
    parser.add_argument("--drain-during", action="store_true",
                        help="drain the evolution queue while the servers write")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("stress.json"))
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    brain = Brain(load_settings(scheduler_in_server=False))
    try:
        runs = [run_once(brain, dict(os.environ), n, args.notes, None, args.drain_workers,
                         args.seed, args.drain_during) for n in args.processes]
    finally:
        brain.close()
    report = {"runs": runs, "cpus": os.cpu_count(), "load_avg_1m": round(os.getloadavg()[0], 2)}
    text = json.dumps(report, indent=2)
    sys.stdout.write(text + "\n")
    args.out.write_text(text + "\n", encoding="utf-8")
    return 0 if all(r["checks"]["ok"] for r in runs) else 1


if __name__ == "__main__":
    raise SystemExit(main())
