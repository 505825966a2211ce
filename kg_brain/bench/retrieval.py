"""`kg-brain bench retrieval`: evidence recall of the real search paths on LoCoMo-format files
(and the MuSiQue multi-hop diagnostic).

Each conversation goes into its own project through the real import path; every question runs
through plain vector search, search_memory, deep_search and the seed-style reference deep mode.
Prints and saves evidence recall@5/10/25, all-evidence hit@10 and MRR per category and overall,
plus per-query latency. Nothing is keyed on ids, names or texts of a particular file.
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict, fields, replace
from pathlib import Path
from typing import Any

from kg_brain.app import Brain
from kg_brain.bench.common import delete_bench_project
from kg_brain.bench.datasets import Corpus, TurnKey, load_locomo, load_musique
from kg_brain.bench.ingest import import_corpus
from kg_brain.errors import InvalidInput
from kg_brain.models import Hit
from kg_brain.search import Search, Tuning
from kg_brain.settings import Settings

log = logging.getLogger(__name__)
KS = (5, 10, 25)
DEPTH = max(KS)
METHODS = ("vector", "search_memory", "deep_search", "deep_reference")
Method = Callable[[str, str], list[Hit]]


def methods(search: Search, hops: int) -> dict[str, Method]:
    return {
        "vector": lambda q, p: search.vector_search(q, p, top_k=DEPTH),
        "search_memory": lambda q, p: search.search_memory(q, p, top_k=DEPTH),
        "deep_search": lambda q, p: search.deep_search(q, p, hops=hops, top_k=DEPTH),
        "deep_reference": lambda q, p: search.deep_search_reference(q, p, hops=hops,
                                                                    top_k=DEPTH),
    }


def score_question(ranked: list[str], evidence: set[str]) -> dict[str, float]:
    """recall@k (share of evidence in the top k), all-evidence hit@10, MRR of the first."""
    scores = {f"recall@{k}": 100.0 * len(evidence & set(ranked[:k])) / len(evidence) for k in KS}
    scores["hit@10"] = 100.0 if evidence <= set(ranked[:10]) else 0.0
    first = next((i for i, z in enumerate(ranked) if z in evidence), None)
    scores["mrr"] = 0.0 if first is None else 1.0 / (first + 1)
    return scores


def summarise(rows: list[tuple[str, dict[str, float]]]) -> dict[str, Any]:
    def mean(items: list[dict[str, float]]) -> dict[str, float]:
        keys = [f"recall@{k}" for k in KS] + ["hit@10", "mrr"]
        return {key: round(statistics.fmean(i[key] for i in items), 4 if key == "mrr" else 2)
                for key in keys} | {"questions": len(items)}

    cats = sorted({c for c, _ in rows})
    return {"overall": mean([s for _, s in rows]),
            "by_category": {c: mean([s for cc, s in rows if cc == c]) for c in cats}}


def run_corpora(brain: Brain, search: Search, corpora: list[Corpus], chosen: list[str],
                hops: int, keep: bool, with_reply: bool,
                reuse: Path | None = None) -> dict[str, Any]:
    """`reuse`: a manifest of imported projects; read if it exists (no import), else written
    after importing (projects kept), so repeated tuning trials skip the import."""
    run_id = uuid.uuid4().hex[:8]
    scored: dict[str, list[tuple[str, dict[str, float]]]] = {m: [] for m in chosen}
    latency: dict[str, list[float]] = {m: [] for m in chosen}
    calls = methods(search, hops)
    imported = _read_manifest(reuse, len(corpora))
    for number, corpus in enumerate(corpora):
        if imported:
            project, ids = imported[number]
        else:
            project = f"bench-{run_id}-{number}"
            began = time.monotonic()
            ids = import_corpus(brain, corpus, project, with_reply=with_reply)
            log.info("corpus %d: %d notes in %.1fs", number, len(ids), time.monotonic() - began)
        try:
            _ask(corpus, ids, project, {m: calls[m] for m in chosen}, scored, latency)
        finally:
            if not (keep or reuse):
                delete_bench_project(brain.db, project)
        if reuse and not imported:
            _append_manifest(reuse, project, ids)
    return {"methods": {m: summarise(scored[m]) | {"latency_ms": _latency(latency[m])}
                        for m in chosen}}


def _read_manifest(path: Path | None, count: int) -> list[tuple[str, dict[TurnKey, str]]]:
    if path is None or not path.exists():
        return []
    entries = json.loads(path.read_text(encoding="utf-8"))
    if len(entries) != count:
        raise SystemExit(f"{path}: {len(entries)} imported projects, the data has {count}")
    return [(e["project"], {(s, t): z for s, t, z in e["ids"]}) for e in entries]


def _append_manifest(path: Path, project: str, ids: dict[TurnKey, str]) -> None:
    entries = json.loads(path.read_text(encoding="utf-8")) if path.exists() else []
    entries.append({"project": project, "ids": [[s, t, z] for (s, t), z in ids.items()]})
    path.write_text(json.dumps(entries), encoding="utf-8")


def _ask(corpus: Corpus, ids: dict[TurnKey, str], project: str, calls: dict[str, Method],
         scored: dict[str, list[tuple[str, dict[str, float]]]],
         latency: dict[str, list[float]]) -> None:
    for question in corpus.questions:
        evidence = {ids[k] for k in question.evidence if k in ids}
        if not evidence:
            continue  # no resolvable evidence: not a retrieval question
        for name, call in calls.items():
            began = time.perf_counter()
            hits = call(question.text, project)
            latency[name].append(1000.0 * (time.perf_counter() - began))
            scored[name].append((question.category, score_question([h.zk_id for h in hits],
                                                                   evidence)))


def _latency(samples: list[float]) -> dict[str, float]:
    if not samples:
        return {}
    ordered = sorted(samples)
    return {"p50": round(statistics.median(ordered), 2),
            "p95": round(ordered[int(0.95 * (len(ordered) - 1))], 2),
            "mean": round(statistics.fmean(ordered), 2)}


def parse_tuning(pairs: list[str]) -> Tuning:
    """`--tuning key=value` overrides of the retrieval constants, for measuring alternatives."""
    types = {f.name: f.type for f in fields(Tuning)}
    changes: dict[str, Any] = {}
    for pair in pairs:
        key, _, value = pair.partition("=")
        if key not in types:
            raise SystemExit(f"unknown tuning key {key!r}; known: {', '.join(types)}")
        kind = str(types[key])
        changes[key] = int(value) if kind == "int" else float(value) if kind == "float" else value
    return replace(Tuning(), **changes)


def report(result: dict[str, Any]) -> str:
    lines = [f"{'method':<16}{'cat':<10}{'n':>5}{'R@5':>8}{'R@10':>8}{'R@25':>8}{'hit@10':>8}"
             f"{'MRR':>8}"]
    for name, body in result["methods"].items():
        for cat, m in [("overall", body["overall"]), *body["by_category"].items()]:
            lines.append(f"{name:<16}{cat:<10}{m['questions']:>5}{m['recall@5']:>8.1f}"
                         f"{m['recall@10']:>8.1f}{m['recall@25']:>8.1f}{m['hit@10']:>8.1f}"
                         f"{m['mrr']:>8.3f}")
        lat = body.get("latency_ms", {})
        lines.append(f"{name:<16}latency ms p50 {lat.get('p50')} p95 {lat.get('p95')}")
    return "\n".join(lines)


def cmd_retrieval(args: argparse.Namespace, settings: Settings) -> int:
    brain = Brain(settings)
    try:
        if args.data is None or (args.suite == "musique" and args.corpus is None):
            raise InvalidInput("--data FILE is required (and --corpus FILE for musique)")
        if args.suite == "musique":
            corpora = [load_musique(args.data, args.corpus)]
        else:
            corpora = load_locomo(args.data)
        search = Search(brain.deps, parse_tuning(args.tuning))
        result = run_corpora(brain, search, corpora, args.methods, args.hops, args.keep,
                             not args.no_reply_context, args.reuse)
        result |= {"suite": args.suite, "data": str(args.data), "hops": args.hops,
                   "tuning": asdict(search.tuning)}
    finally:
        brain.close()
    sys.stdout.write(report(result) + "\n")
    if args.out:
        args.out.write_text(json.dumps(result, indent=2), encoding="utf-8")
    return 0


def add_parser(kinds: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = kinds.add_parser("retrieval", help="evidence recall on a LoCoMo-format file (or MuSiQue)")
    p.add_argument("--data", type=Path, help="LoCoMo-format JSON (musique: the questions file)")
    p.add_argument("--corpus", type=Path, help="musique: the pooled passages file")
    p.add_argument("--suite", choices=("locomo", "musique"), default="locomo")
    p.add_argument("--out", type=Path, help="write the result JSON here")
    p.add_argument("--methods", nargs="+", choices=METHODS, default=list(METHODS))
    p.add_argument("--hops", type=int, default=2)
    p.add_argument("--tuning", nargs="*", default=[], metavar="KEY=VALUE")
    p.add_argument("--keep", action="store_true", help="keep the bench projects afterwards")
    p.add_argument("--reuse", type=Path, metavar="MANIFEST",
                   help="reuse the projects listed in MANIFEST (import and write it if missing)")
    p.add_argument("--no-reply-context", action="store_true",
                   help="import turns without the turn they answer in their context")
    p.set_defaults(handler=cmd_retrieval)
