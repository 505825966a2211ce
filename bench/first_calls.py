"""The search tools' first calls on a server that has planned nothing yet (its query caches
emptied, as a restart leaves them), with and without the MCP server's warm-up
(kg_brain/surfaces/transport.py WarmUp.plan_searches), on a private server (bench/scale.py's)
grown to --notes in the scale bench's layout. Its projects are named `p-NN` (4 characters) and
the warm-up reads a project of 16: a text parameter of up to 10 characters and one of up to 100
are planned apart, so a warm-up that left the project a parameter of its own would not cover
them. Each round, in turn (the order alternating): caches emptied, then either nothing or the
warm-up, then search_memory, deep_search and preflight_check in a project not asked before,
each twice (two questions not asked before). Wall seconds and the Neo4j process's CPU seconds.

    python -m bench.first_calls --notes 10000 --rounds 3 --out docs/bench/tune/X.json
"""

from __future__ import annotations

import argparse
import logging
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from bench import corpus
from bench.cold_start import cpu_seconds
from bench.common import emit_result
from bench.scale import load_avg, private_run
from bench.scale_build import Layout, grow
from kg_brain.base.settings import Settings
from kg_brain.root.app import Brain, interrupt_on_sigterm
from kg_brain.surfaces.transport import WarmUp


def timed(call: Callable[[], object], pid: int | None) -> dict[str, float | None]:
    cpu = cpu_seconds(pid) if pid else None
    started = time.perf_counter()
    call()
    wall = time.perf_counter() - started
    after = cpu_seconds(pid) if pid else None
    return {"s": round(wall, 3),
            "neo4j_cpu_s": round(after - cpu, 2) if after is not None and cpu is not None
            else None}


def first_calls(brain: Brain, pid: int | None, notes: int, rounds: int) -> dict[str, Any]:
    layout = Layout("p", 24)
    grow(brain, layout, notes, 0.0, 0, pid)
    asked = iter(corpus.queries(rounds * 2 * 6, seed=23))
    projects = iter(layout.names[1:])
    tools: dict[str, Callable[[str, str], object]] = {
        "search_memory": lambda q, p: brain.search.search_memory(q, p, stamp=False),
        "deep_search": lambda q, p: brain.search.deep_search(q, p, stamp=False),
        "preflight_check": lambda q, p: brain.mistakes.preflight_check(q, p)}
    out: list[dict[str, Any]] = []
    for r in range(rounds):
        for warm in ((False, True) if r % 2 == 0 else (True, False)):
            brain.db.driver.execute_query("CALL db.clearQueryCaches()")
            entry: dict[str, Any] = {"round": r, "warm_up": warm, "load_1m": load_avg()}
            if warm:
                entry["warm_up_call"] = timed(WarmUp(brain).plan_searches, pid)
            project = next(projects)
            entry["project"] = project
            for name, tool in tools.items():
                for call in ("first", "second"):
                    ask = partial(tool, next(asked), project)
                    entry[f"{name}.{call}"] = timed(ask, pid)
            out.append(entry)
    return {"rounds": out, "notes": notes, "projects": dict(layout.have)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--notes", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", default="docs/bench/tune/first-calls.json")
    args = ap.parse_args(argv)
    logging.getLogger("neo4j").setLevel(logging.ERROR)
    interrupt_on_sigterm()
    settings = Settings()
    result = private_run(settings, lambda brain, pid: first_calls(brain, pid, args.notes,
                                                                  args.rounds))
    emit_result(result, Path(args.out), settings)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
