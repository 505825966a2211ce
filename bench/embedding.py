"""The embedding runtimes side by side on the same texts: `EMBEDDING_RUNTIME` torch, onnx and
onnx-int8, each in a fresh process, in alternating rounds.

    python -m bench.embedding [--notes 512] [--queries 200] [--rounds 3] \
        [--locomo locomo.json] [--musique questions.json passages.json] \
        [--out docs/bench/embedding.json]

Per runtime: load time (import and first vector, from the cached model), single-text latency
p50 for a search query and for a note, batched throughput over the notes, resident memory,
and the min/mean cosine of its vectors to torch's on every text. The ONNX models are built
before timing starts (into KG_BRAIN_CACHE_DIR, as the server would). With --locomo/--musique,
the first round also scores exact vector retrieval (every question against every turn of its
corpus, no database): what the runtime alone changes in retrieval, free of index and
shared-database noise.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench import corpus
from bench.common import emit_result, record_check_run, rss_mb
from bench.datasets import Corpus, load_locomo, load_musique

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


def exact_recall(embedder: Any, corpora: list[Corpus]) -> dict[str, float]:
    """Recall@10 and MRR of flat cosine ranking, averaged over questions with evidence."""
    from bench.metrics import score_question

    scores: list[dict[str, float]] = []
    for conversation in corpora:
        keys = [str(t.key) for t in conversation.turns]
        docs = np.asarray(embedder.encode_many(
            [f"{t.speaker}: {t.text}" for t in conversation.turns]))
        asked = [(q, {str(k) for k in q.evidence} & set(keys)) for q in conversation.questions]
        asked = [(q, evidence) for q, evidence in asked if evidence]
        vectors = np.asarray(embedder.encode_many([q.text for q, _ in asked]))
        ranked = np.argsort(-(vectors @ docs.T), axis=1)[:, :25]
        scores += [score_question([keys[i] for i in row], evidence)
                   for (_, evidence), row in zip(asked, ranked, strict=True)]
    return {"questions": len(scores),
            **{m: round(statistics.fmean(s[m] for s in scores), 3) for m in ("recall@10", "mrr")}}


def suites(locomo: Path | None, musique: list[Path] | None) -> dict[str, list[Corpus]]:
    found = {"locomo": load_locomo(locomo)} if locomo else {}
    return found | ({"musique": [load_musique(*musique)]} if musique else {})


def measure_here(notes: int, queries: int,
                 suites_data: dict[str, list[Corpus]]) -> dict[str, Any]:
    """One runtime in this (fresh) process, the one EMBEDDING_RUNTIME names."""
    began = time.perf_counter()
    from kg_brain.base.settings import load_settings
    from kg_brain.enrichment.embed import build_embedder

    embedder = build_embedder(load_settings())
    embedder.encode("load")
    load_s = time.perf_counter() - began
    data = texts(notes, queries)
    for text in data["queries"][:10]:  # first calls set up kernels and buffers: not timed
        embedder.encode(text)
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
    result = {"runtime": embedder.runtime, "load_s": round(load_s, 3),
              "query_p50_ms": round(1000 * statistics.median(latency["query"]), 2),
              "note_p50_ms": round(1000 * statistics.median(latency["note"]), 2),
              "batched_texts_per_s": round(len(data["notes"]) / batched_s, 1),
              "rss_mb": rss_mb(os.getpid()), "peak_rss_mb": peak_rss_mb(), "vectors": vectors}
    return result | {"exact_vector_retrieval": {name: exact_recall(embedder, corpora)
                                                for name, corpora in suites_data.items()}}


def run_child(runtime: str, notes: int, queries: int,
              data_args: Sequence[str] = ()) -> dict[str, Any]:
    env = {**os.environ, "EMBEDDING_RUNTIME": runtime, "TOKENIZERS_PARALLELISM": "false"}
    done = subprocess.run([sys.executable, "-m", "bench.embedding", "--child",
                           "--notes", str(notes), "--queries", str(queries), *data_args],
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
    return summary | {"exact_vector_retrieval": runs[0]["exact_vector_retrieval"]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=512)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runtimes", nargs="+", choices=RUNTIMES, default=list(RUNTIMES))
    parser.add_argument("--locomo", type=Path, help="LoCoMo-format JSON")
    parser.add_argument("--musique", type=Path, nargs=2, metavar=("QUESTIONS", "PASSAGES"))
    parser.add_argument("--out", type=Path, default=Path("embedding.json"))
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        data = suites(args.locomo, args.musique)
        sys.stdout.write(json.dumps(measure_here(args.notes, args.queries, data)))
        return 0
    data_args = [*(["--locomo", str(args.locomo)] if args.locomo else []),
                 *(["--musique", *map(str, args.musique)] if args.musique else [])]
    for runtime in args.runtimes:  # build (once per cache) before anything is timed
        run_child(runtime, 1, 1)
    runs: dict[str, list[dict[str, Any]]] = {r: [] for r in args.runtimes}
    for round_no in range(args.rounds):
        order = args.runtimes if round_no % 2 == 0 else list(reversed(args.runtimes))
        for runtime in order:
            extra = data_args if round_no == 0 else []
            runs[runtime].append(run_child(runtime, args.notes, args.queries, extra))
    reference = np.asarray(run_child("torch", args.notes, args.queries)["vectors"]) \
        if "torch" not in runs else np.asarray(runs["torch"][0]["vectors"])
    report = {"texts": {"notes": args.notes, "queries": args.queries}, "rounds": args.rounds,
              "runtimes": {r: summarise(rs, reference) for r, rs in runs.items()},
              "cpus": os.cpu_count(), "load_avg_1m": round(os.getloadavg()[0], 2)}
    if data_args:  # every conversation and question: the check splits too
        read = [str(p) for p in (args.locomo, *(args.musique or ())) if p is not None]
        record_check_run("embedding", "all", read, args.out)
    emit_result(report, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
