"""The embedding runtimes side by side on the same texts: `EMBEDDING_RUNTIME` torch, onnx and
onnx-int8, each in a fresh process, in alternating rounds.

    python -m kg_brain.bench.embedding [--notes 512] [--queries 200] [--rounds 3] \
        [--out docs/bench/embedding.json]

Per runtime: load time (import and first vector, from the cached export), single-text latency
p50 for a search query and for a note, batched throughput over the notes, resident memory,
and the min/mean cosine of its vectors to torch's on every text. The ONNX exports are made
before timing starts (into KG_BRAIN_CACHE_DIR, as the server would).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from kg_brain.bench import corpus, emit_result
from kg_brain.bench.cold_start import rss_mb

RUNTIMES = ("torch", "onnx", "onnx-int8")


def texts(notes: int, queries: int) -> dict[str, list[str]]:
    return {"notes": [r["content"] for r in corpus.notes(notes, "bench-embedding")],
            "queries": corpus.queries(queries)}


def peak_rss_mb() -> float | None:
    """Peak resident memory of this process in MB (Linux)."""
    status = Path("/proc/self/status").read_text()
    kb = next((int(line.split()[1]) for line in status.splitlines()
               if line.startswith("VmHWM:")), None)
    return None if kb is None else round(kb / 1024, 1)


def measure_here(notes: int, queries: int) -> dict[str, Any]:
    """One runtime in this (fresh) process, the one EMBEDDING_RUNTIME names."""
    began = time.perf_counter()
    from kg_brain.embed import build_embedder
    from kg_brain.settings import load_settings

    embedder = build_embedder(load_settings())
    embedder.encode("load")
    load_s = time.perf_counter() - began
    data = texts(notes, queries)
    latency: dict[str, list[float]] = {"query": [], "note": []}
    for kind, items in (("query", data["queries"]), ("note", data["notes"][:queries])):
        for text in items:
            start = time.perf_counter()
            embedder.encode(text)
            latency[kind].append(time.perf_counter() - start)
    start = time.perf_counter()
    vectors = embedder.encode_many(data["notes"])
    batched_s = time.perf_counter() - start
    vectors += embedder.encode_many(data["queries"])
    return {"runtime": embedder.runtime, "load_s": round(load_s, 3),
            "query_p50_ms": round(1000 * statistics.median(latency["query"]), 2),
            "note_p50_ms": round(1000 * statistics.median(latency["note"]), 2),
            "batched_texts_per_s": round(len(data["notes"]) / batched_s, 1),
            "rss_mb": rss_mb(os.getpid()), "peak_rss_mb": peak_rss_mb(), "vectors": vectors}


def run_child(runtime: str, notes: int, queries: int) -> dict[str, Any]:
    env = {**os.environ, "EMBEDDING_RUNTIME": runtime, "TOKENIZERS_PARALLELISM": "false"}
    done = subprocess.run([sys.executable, "-m", "kg_brain.bench.embedding", "--child",
                           "--notes", str(notes), "--queries", str(queries)],
                          env=env, text=True, capture_output=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{runtime} failed:\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def summarise(runs: list[dict[str, Any]], reference: np.ndarray) -> dict[str, Any]:
    """Medians over the rounds; cosines from the first round (vectors are deterministic)."""
    keys = ("load_s", "query_p50_ms", "note_p50_ms", "batched_texts_per_s", "rss_mb",
            "peak_rss_mb")
    summary: dict[str, Any] = {k: statistics.median(r[k] for r in runs) for k in keys}
    cos = np.sum(np.asarray(runs[0]["vectors"]) * reference, axis=1)
    summary["cosine_to_torch_min"] = round(float(cos.min()), 5)
    summary["cosine_to_torch_mean"] = round(float(cos.mean()), 5)
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=512)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runtimes", nargs="+", choices=RUNTIMES, default=list(RUNTIMES))
    parser.add_argument("--out", type=Path, default=Path("embedding.json"))
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        sys.stdout.write(json.dumps(measure_here(args.notes, args.queries)))
        return 0
    for runtime in args.runtimes:  # export (once per cache) before anything is timed
        run_child(runtime, 1, 1)
    runs: dict[str, list[dict[str, Any]]] = {r: [] for r in args.runtimes}
    for round_no in range(args.rounds):
        order = args.runtimes if round_no % 2 == 0 else list(reversed(args.runtimes))
        for runtime in order:
            runs[runtime].append(run_child(runtime, args.notes, args.queries))
    reference = np.asarray(run_child("torch", args.notes, args.queries)["vectors"]) \
        if "torch" not in runs else np.asarray(runs["torch"][0]["vectors"])
    report = {"texts": {"notes": args.notes, "queries": args.queries}, "rounds": args.rounds,
              "runtimes": {r: summarise(rs, reference) for r, rs in runs.items()},
              "cpus": os.cpu_count(), "load_avg_1m": round(os.getloadavg()[0], 2)}
    emit_result(report, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
