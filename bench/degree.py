"""`kg-brain bench degree`: the shape of a graph written through add_memory.

N realistic synthetic notes (bench/corpus.py) are written one by one through the real
write pipeline (heuristic enricher, entities, link decisions, degree bound, evolution jobs left
queued), as an agent writes them. Printed and saved: the link degree distribution (p50, p95,
p99, max) of every note, split into automatic similarity links and typed links, the entity count
and the most-mentioned entities, and add_memory latency over the last notes written (the graph then
holds nearly N notes).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path
from typing import Any

from tqdm import tqdm

from bench import corpus, store
from bench.common import run_in_project
from kg_brain.base.settings import Settings
from kg_brain.root.app import Brain


def percentiles(values: list[int]) -> dict[str, float]:
    ordered = sorted(values) or [0]
    return {"p50": ordered[len(ordered) // 2], "p95": ordered[int(len(ordered) * 0.95)],
            "p99": ordered[int(len(ordered) * 0.99)], "max": ordered[-1],
            "mean": round(statistics.fmean(ordered), 2)}


def run(brain: Brain, notes: int, timed: int, project: str) -> dict[str, Any]:
    texts = [r["content"] + f" (case {i})" for i, r in enumerate(corpus.notes(notes, project))]
    latencies = []
    began = time.monotonic()
    for number, text in enumerate(tqdm(texts, desc="add_memory", unit="note")):
        start = time.perf_counter()
        brain.writer.add(text, project)
        if number >= notes - timed:
            latencies.append(1000.0 * (time.perf_counter() - start))
    rows = store.note_degrees(brain.db, project=project)
    entities = store.entity_stats(brain.db, project=project)
    ordered = sorted(latencies)
    return {
        "benchmark": "degree", "notes_written": notes, "notes_stored": len(rows),
        "link_top_k": brain.settings.link_top_k, "write_s": round(time.monotonic() - began, 1),
        "similarity_degree": percentiles([r["similarity"] for r in rows]),
        "typed_degree": percentiles([r["typed"] for r in rows]),
        "all_degree": percentiles([r["similarity"] + r["typed"] for r in rows]),
        "entities": entities["entities"], "mentions_per_note": percentiles(
            [r["mentions"] for r in rows]),
        "top_entities": entities["top"],
        "add_memory_ms_last": {"n": len(ordered), "p50": round(ordered[len(ordered) // 2], 1),
                               "p95": round(ordered[int(len(ordered) * 0.95)], 1)},
    }


def cmd_degree(args: argparse.Namespace, settings: Settings) -> int:
    timed = min(args.timed, args.notes)
    return run_in_project(settings, "degree", args.keep, args.out,
                          lambda brain, project: run(brain, args.notes, timed, project))


def add_parser(kinds: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = kinds.add_parser("degree", help="degree distribution of a graph written by add_memory")
    p.add_argument("--notes", type=int, default=10_000)
    p.add_argument("--timed", type=int, default=200, help="last add_memory calls timed")
    p.add_argument("--keep", action="store_true", help="keep the bench project afterwards")
    p.add_argument("--out", type=Path, default=Path("docs/bench/degree.json"))
    p.set_defaults(handler=cmd_degree)
