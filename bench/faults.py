"""Fault injection: a real Neo4j is stopped while the MCP server takes writes, then restarted.

    python -m bench.faults [--timeout-s 3] [--outage-s 10] [--out faults.json]

A private Neo4j (LocalNeo4j in a temporary home on free ports, never the configured server) backs
one Brain and one MCP session (in-memory fastmcp Client) for the whole run. Writes go on while
the database is stopped, stays down and restarts on the same home and ports. Reported: calls
failed during the outage and how (message, duration against NEO4J_TIMEOUT_S), time to recover
after the restart without touching the server, the evolution and mirror queues queued before the
outage drained afterwards, and every note whole (embedding present, links to existing notes).
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from fastmcp import Client
from fastmcp.exceptions import ToolError

from bench import corpus, store
from bench.common import emit_result
from kg_brain.base.settings import load_settings
from kg_brain.enrichment.embed import Embedder, SentenceTransformerEmbedder
from kg_brain.root.app import Brain
from kg_brain.store.localdb import LocalNeo4j, free_port
from kg_brain.store.notes import get_notes
from kg_brain.surfaces.tools import build_server

log = logging.getLogger(__name__)
WARMUP_ATTEMPTS = 5
TOPIC = ("The {c} retries its Neo4j writes with exponential backoff; transient deadlocks are "
         "retried by the driver and surface only after {n} seconds.")


@dataclass
class CallLog:
    """Every tool call of the run: when, how long, and the error text if it failed."""

    calls: list[dict[str, Any]] = field(default_factory=list)

    def add(self, phase: str, began: float, error: str | None, zk_id: str | None) -> None:
        self.calls.append({"phase": phase, "at": began, "s": round(time.monotonic() - began, 3),
                           "error": error, "zk_id": zk_id})

    def of(self, phase: str) -> list[dict[str, Any]]:
        return [c for c in self.calls if c["phase"] == phase]


def note_text(i: int) -> str:
    return TOPIC.format(c=corpus.COMPONENTS[i % len(corpus.COMPONENTS)], n=10 + i) + (
        f" Incident {i}: {corpus.CONDITIONS[i % len(corpus.CONDITIONS)]}.")


async def _add(client: Client, project: str, i: int, phase: str, calls: CallLog) -> bool:
    began = time.monotonic()
    try:
        result = await client.call_tool("add_memory", {"content": note_text(i),
                                                       "project": project})
    except ToolError as exc:
        calls.add(phase, began, str(exc), None)
        return False
    calls.add(phase, began, None, result.structured_content["zk_id"])
    return True


async def _read(client: Client, zk_id: str, phase: str, calls: CallLog) -> None:
    """A call that only reads (no model work before it): times the database failure alone."""
    began = time.monotonic()
    try:
        await client.call_tool("recall", {"zk_ids": [zk_id]})
    except ToolError as exc:
        calls.add(f"{phase}-read", began, str(exc), None)
        return
    calls.add(f"{phase}-read", began, None, None)


async def _write_while(client: Client, project: str, counter: list[int], phase: str,
                       calls: CallLog, until: threading.Event) -> None:
    known = next(c["zk_id"] for c in calls.calls if c["zk_id"])
    while not until.is_set():
        counter[0] += 1
        await _add(client, project, counter[0], phase, calls)
        await _read(client, known, phase, calls)


async def _in_thread(fn: Any, done: threading.Event) -> Any:
    try:
        return await anyio.to_thread.run_sync(fn)
    finally:
        done.set()


async def scenario(server: LocalNeo4j, brain: Brain, project: str, writes_before: int,
                   outage_s: float) -> dict[str, Any]:
    """Write, stop Neo4j under writes, keep writing through the outage, restart, recover."""
    calls, counter = CallLog(), [0]
    async with Client(build_server(brain)) as client:
        # a server just started may miss the transaction timeout on its first write (cold
        # caches, a loaded machine): warm it up until one write succeeds, counted apart
        for _ in range(WARMUP_ATTEMPTS):
            counter[0] += 1
            if await _add(client, project, counter[0], "warmup", calls):
                break
        for _ in range(writes_before):
            counter[0] += 1
            await _add(client, project, counter[0], "before", calls)
        pending = brain.evolution.queue_depth()
        stopped, outage_over, restarted = threading.Event(), threading.Event(), threading.Event()
        began_stop = time.monotonic()
        async with anyio.create_task_group() as tg:
            tg.start_soon(_write_while, client, project, counter, "stopping", calls, stopped)
            await _in_thread(server.stop, stopped)
        stop_s = time.monotonic() - began_stop
        async with anyio.create_task_group() as tg:
            tg.start_soon(_write_while, client, project, counter, "down", calls, outage_over)
            await anyio.sleep(outage_s)
            outage_over.set()
        began_start = time.monotonic()
        async with anyio.create_task_group() as tg:
            tg.start_soon(_write_while, client, project, counter, "restarting", calls, restarted)
            await _in_thread(lambda: server.start(timeout_s=300), restarted)
        ready = time.monotonic()
        while True:
            counter[0] += 1
            if await _add(client, project, counter[0], "recovering", calls):
                break
        recovered = time.monotonic()
        for _ in range(2):
            counter[0] += 1
            await _add(client, project, counter[0], "after", calls)
    return {"calls": calls, "queued_before_outage": pending, "stop_s": round(stop_s, 2),
            "restart_s": round(ready - began_start, 2),
            "recover_after_ready_s": round(recovered - ready, 3),
            "recover_after_restart_began_s": round(recovered - began_start, 2)}


def drain_queues(brain: Brain, project: str) -> dict[str, int]:
    """What a scheduler would do once the database is back: both queues, to the end."""
    evolved = mirrored = 0
    while n := brain.evolution.process(20, project=project):
        evolved += n
    mirror = brain.mirror
    while n := mirror.drain(50):
        mirrored += n
    return {"evolution_jobs_done": evolved, "mirror_jobs_done": mirrored}


def integrity(brain: Brain, project: str, calls: CallLog, vault: Path,
              subfolder: str) -> dict[str, Any]:
    written = {c["zk_id"] for c in calls.calls if c["zk_id"]}
    counts = store.stress_note_counts(brain.db, project=project)
    links = store.stress_link_counts(brain.db, project=project)
    jobs = [j for kind in ("evolve", "mirror")
            for j in store.stress_jobs(brain.db, project=project, kind=kind)]
    files = {p.stem for p in (vault / subfolder / "zk").glob("ZK-*.md")}
    queued = {j["zk_id"] for j in jobs if j["key"].startswith("mirror")}
    failed_adds = sum(1 for c in calls.calls if c["error"] and not c["phase"].endswith("-read"))
    found = get_notes(brain.db, zk_ids=sorted(written))
    return {"notes_acknowledged": len(written), "notes_in_graph": counts["notes"],
            "acknowledged_missing": len(written) - len(found),
            "committed_though_reported_failed": counts["notes"] - len(found),
            "failed_adds": failed_adds,
            "notes_without_embedding": counts["without_embedding"],
            "links": links["links"], "links_foreign_or_partial": links["foreign_or_partial"],
            "jobs_not_done": sum(1 for j in jobs if j["state"] != "done"),
            "notes_never_queued_for_mirror": len(written - queued),
            "queued_notes_not_mirrored": len((written & queued) - files)}


def summarize(run: dict[str, Any], timeout_s: float) -> dict[str, Any]:
    calls: CallLog = run.pop("calls")
    failed = [c for c in calls.calls if c["error"] and c["phase"] != "warmup"]
    outage = [c for c in calls.calls
              if c["phase"].split("-")[0] in ("stopping", "down", "restarting")]
    reads = [c for c in failed if c["phase"].endswith("-read")]
    return {**run, "calls_total": len(calls.calls),
            "calls_during_outage": len(outage), "calls_failed": len(failed),
            "warmup_failed": sum(1 for c in calls.of("warmup") if c["error"]),
            "failed_max_s": max((c["s"] for c in failed), default=0.0),
            "failed_reads": len(reads),
            "failed_read_max_s": max((c["s"] for c in reads), default=0.0),
            "by_phase": {p: {"calls": len(calls.of(p)),
                             "failed": sum(1 for c in calls.of(p) if c["error"]),
                             "max_s": max((c["s"] for c in calls.of(p)), default=0.0)}
                         for p in ("before", "stopping", "stopping-read", "down", "down-read",
                                   "restarting", "restarting-read", "recovering", "after")},
            "timeout_s": timeout_s,
            "failures_without_database_unavailable": sum(
                1 for c in failed if "database unavailable" not in c["error"]),
            "failures_with_internal_detail": sum(
                1 for c in failed if "Traceback" in c["error"]
                or c["error"].startswith("Error calling tool")),
            "error_messages": sorted({c["error"][:160] for c in failed})[:8],
            "failed_while_recovering": sum(1 for c in calls.of("recovering") if c["error"]),
            "failed_after_recovery": sum(1 for c in calls.of("after") if c["error"])}


def run(home: Path, vault: Path, embedder: Embedder, timeout_s: float = 3.0,
        outage_s: float = 10.0, writes_before: int = 4) -> dict[str, Any]:
    """The whole fault run on a private server; always stops it."""
    server = LocalNeo4j(home=home, bolt_port=free_port(), http_port=free_port(), heap="512m",
                        pagecache="128m")
    conn = server.start(timeout_s=300)
    vault.mkdir(parents=True, exist_ok=True)
    project = f"faults-{uuid.uuid4().hex[:8]}"
    settings = load_settings(neo4j_uri=conn.uri, neo4j_password=conn.password,
                             neo4j_timeout_s=timeout_s, scheduler_in_server=False,
                             llm_provider="heuristic", obsidian_vault_path=vault,
                             obsidian_api_key=None)
    brain = Brain(settings, embedder=embedder)
    try:
        outcome = anyio.run(scenario, server, brain, project, writes_before, outage_s)
        calls = outcome["calls"]
        drained = drain_queues(brain, project)
        checks = integrity(brain, project, calls, vault, settings.obsidian_vault_subfolder)
    finally:
        brain.close()
        server.stop()
    return {"project": project, **summarize(outcome, timeout_s), "drained": drained,
            "integrity": checks}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout-s", type=float, default=3.0, help="NEO4J_TIMEOUT_S")
    parser.add_argument("--outage-s", type=float, default=10.0, help="time kept down")
    parser.add_argument("--out", type=Path, default=Path("faults.json"))
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="kg-faults-") as tmp:
        report = run(Path(tmp) / "neo4j", Path(tmp) / "vault", SentenceTransformerEmbedder(),
                     args.timeout_s, args.outage_s)
    emit_result(report, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
