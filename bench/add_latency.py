"""`kg-brain bench add-latency`: add_memory against its floor, side by side in one run.

The floor is what any write path must do for a note: one embedding with the runtime
(`embedder.encode`) and one raw `db.index.vector.queryNodes` call (k = 10). It is timed two ways:
embedding the text add_memory embeds (title, content and context, about twice the content:
`floor`, the same work done bare, as `bench scale` compares the import) and embedding the
content alone (`floor_content`). A project of `--notes` synthetic notes is written through the
bulk import first; then each timed note is written through add_memory (heuristic enricher, one
client session, so the session order is written as in use) and its floors are timed right
beside it, the order alternating, so all see the same load. The first `--warmup` of each are not
timed. Printed and saved as JSON: p50 and p95 of add_memory, of each floor and of their parts,
and add_memory's p50 over each floor's. Nothing is asserted: the ratio is the figure to compare
across machines and loads.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from bench import corpus
from bench.common import delete_bench_project, provenance
from bench.scale_build import floors, latency_stats
from kg_brain.base.settings import Settings
from kg_brain.root.app import Brain

SESSION = "bench-add-latency"


def add(brain: Brain, text: str, project: str) -> float:
    began = time.perf_counter()
    brain.writer.add(text, project, session_id=SESSION)
    return time.perf_counter() - began


def measure(brain: Brain, project: str, adds: int, warmup: int) -> dict[str, Any]:
    """Each note added and its floors timed beside it, in alternating order."""
    texts = [r["content"] + f" (case {i})" for i, r in
             enumerate(corpus.notes(warmup + adds, project, seed=99))]
    samples: dict[str, list[float]] = {}
    for i, text in enumerate(texts):
        if i % 2:
            timed = floors(brain, text, project)
            timed["add_memory"] = add(brain, text, project)
        else:
            timed = {"add_memory": add(brain, text, project), **floors(brain, text, project)}
        if i < warmup:
            continue
        for name, seconds in timed.items():
            samples.setdefault(name, []).append(seconds)
    stats = {name: latency_stats(values) for name, values in samples.items()}
    p50 = stats["add_memory"]["p50_ms"]
    return stats | {"add_to_floor_p50": round(p50 / stats["floor"]["p50_ms"], 2),
                    "add_to_floor_content_p50": round(p50 / stats["floor_content"]["p50_ms"],
                                                      2)}


def run(brain: Brain, notes: int, adds: int, warmup: int, keep: bool) -> dict[str, Any]:
    project = f"bench-addlat-{uuid.uuid4().hex[:6]}"
    try:
        brain.importer.add_many(list(corpus.notes(notes, project)))
        result = measure(brain, project, adds, warmup)
    finally:
        if not keep:
            delete_bench_project(brain.db, project)
    return {"project_notes": notes, "embedding_runtime": brain.embedder.runtime,
            "machine": {"cpus": os.cpu_count(), "load_avg_1m": round(os.getloadavg()[0], 2)},
            **result}


def cmd_add_latency(args: argparse.Namespace, settings: Settings) -> int:
    brain = Brain(settings)
    try:
        result = run(brain, args.notes, args.adds, args.warmup, args.keep)
    finally:
        brain.close()
    result["provenance"] = provenance(settings)
    text = json.dumps(result, indent=2, default=str)
    sys.stdout.write(text + "\n")
    Path(args.out).write_text(text + "\n", encoding="utf-8")
    return 0


def add_parser(kinds: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = kinds.add_parser("add-latency", help="add_memory against one embedding and one raw "
                                             "vector query, side by side")
    p.add_argument("--notes", type=int, default=1000, help="notes in the project written to")
    p.add_argument("--adds", type=int, default=200, help="add_memory calls timed")
    p.add_argument("--warmup", type=int, default=30, help="untimed calls first")
    p.add_argument("--keep", action="store_true", help="keep the bench project afterwards")
    p.add_argument("--out", default="bench-add-latency.json")
    p.set_defaults(handler=cmd_add_latency)
