"""`kg-brain bench retrieval`: retrieval quality of the real search paths.

Suites: `locomo` (evidence recall on LoCoMo-format files), `musique` (the multi-hop diagnostic)
and `coding` (the coding-agent set shipped in bench/data/coding, see bench/coding.py).
For LoCoMo and MuSiQue each conversation goes into its own project through the bulk import
(`--write-path import`), through add_memory one turn at a time (`add`), or both side by side;
every question then runs through search_memory, deep_search and the baselines (the exact
cosine over the project's stored vectors, the seed's deep search, numpy vector + BM25 fusion).
Prints and saves evidence recall@5/10/25, all-evidence hit@10 and MRR per category and overall,
plus per-query latency.
Nothing is keyed on ids, names or texts of a particular file.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from dataclasses import asdict, fields, replace
from pathlib import Path
from typing import Any

from bench import coding
from bench.baselines import Baselines, Fusion
from bench.coding_data import rewordings_of, shipped_projects
from bench.common import (
    BENCH_PREFIX,
    delete_bench_project,
    provenance,
    record_check_run,
    run_id,
    write_into,
)
from bench.datasets import (
    SPLITS,
    Corpus,
    TurnKey,
    load_locomo,
    load_musique,
    split_corpora,
)
from bench.ingest import WRITE_PATHS, write_corpus
from bench.methods import METHODS, Method, build, unfloored
from bench.metrics import KS, latency, score_question, summarise
from kg_brain.base.errors import InvalidInput
from kg_brain.base.settings import Settings
from kg_brain.domain.ranking import DEEP_HOPS, DeepTuning, Tuning
from kg_brain.domain.search import Search
from kg_brain.root.app import Brain

log = logging.getLogger(__name__)
DEPTH = max(KS)
Scored = dict[str, list[tuple[str, dict[str, float | None]]]]


def run_corpora(brain: Brain, calls: dict[str, Method], corpora: list[Corpus], keep: bool,
                with_reply: bool, reuse: Path | None = None,
                write_path: str = "import", prefix: str = "bench",
                run: str | None = None) -> dict[str, Any]:
    """`reuse`: a manifest of written projects; the corpora it lists for this write path are
    read as stored (nothing is written), the others written, kept and appended to it before
    they are questioned, so tuning trials and a failed run skip the writes. `run`: the
    projects' run id (common.run_id)."""
    run = run_id(run)
    scored: Scored = {m: [] for m in calls}
    latencies: dict[str, list[float]] = {m: [] for m in calls}
    written = _read_manifest(reuse, write_path, len(corpora))
    timings = []
    for number, corpus in enumerate(corpora):
        if number < len(written):
            project, ids = written[number]
        else:
            project = write_into(brain.db, f"{prefix}-{run}-{write_path}-{number}")
            began = time.monotonic()
            ids = write_corpus(brain, corpus, project, write_path, with_reply)
            brain.deps.index_fetch.forget(project)  # read as a fresh process reads it
            timings.append({"project": project, "notes": len(set(ids.values())),
                            "write_s": round(time.monotonic() - began, 1)})
            log.info("corpus %d: %s", number, timings[-1])
            if reuse:
                _append_manifest(reuse, write_path, project, ids)
        try:
            _ask(corpus, ids, project, calls, scored, latencies)
        finally:
            if not (keep or reuse):
                delete_bench_project(brain.db, project)
    return {"methods": {m: summarise(scored[m]) | {"latency_ms": latency(latencies[m])}
                        for m in calls},
            "write_path": write_path, "writes": timings}


def _read_manifest(path: Path | None, write_path: str,
                   count: int) -> list[tuple[str, dict[TurnKey, str]]]:
    if path is None or not path.exists():
        return []
    entries = [e for e in json.loads(path.read_text(encoding="utf-8"))
               if e.get("write_path", "import") == write_path]
    if len(entries) > count:
        raise SystemExit(f"{path}: {len(entries)} {write_path} projects, the data has {count}")
    return [(e["project"], {(s, t): z for s, t, z in e["ids"]}) for e in entries]


def _append_manifest(path: Path, write_path: str, project: str, ids: dict[TurnKey, str]) -> None:
    entries = json.loads(path.read_text(encoding="utf-8")) if path.exists() else []
    entries.append({"project": project, "write_path": write_path,
                    "ids": [[s, t, z] for (s, t), z in ids.items()]})
    path.write_text(json.dumps(entries), encoding="utf-8")


def _ask(corpus: Corpus, ids: dict[TurnKey, str], project: str, calls: dict[str, Method],
         scored: Scored, latencies: dict[str, list[float]]) -> None:
    for question in corpus.questions:
        evidence = {ids[k] for k in question.evidence if k in ids}
        if not evidence:
            continue  # no resolvable evidence: not a retrieval question
        for name, call in calls.items():
            began = time.perf_counter()
            ranked, _ = call(question.text, project, False)
            latencies[name].append(1000.0 * (time.perf_counter() - began))
            scored[name].append((question.category, score_question(ranked, evidence)))


def merge_write_paths(results: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """One result for several write paths: methods named `<method>@<path>`, side by side."""
    if len(results) == 1:
        return next(iter(results.values()))
    methods = {f"{m}@{path}": result["methods"][m]
               for m in next(iter(results.values()))["methods"]
               for path, result in results.items()}
    return {"methods": methods, "write_path": list(results),
            "writes": {path: r["writes"] for path, r in results.items()}}


def parse_tuning(pairs: list[str]) -> tuple[Tuning, DeepTuning]:
    """`--tuning key=value` overrides of search_memory's constants and `deep.key=value` of
    deep_search's, for measuring alternatives."""
    changes: dict[type, dict[str, Any]] = {Tuning: {}, DeepTuning: {}}
    for pair in pairs:
        key, _, value = pair.partition("=")
        cls, name = (DeepTuning, key[5:]) if key.startswith("deep.") else (Tuning, key)
        types = {f.name: f.type for f in fields(cls)}
        if name not in types:
            raise SystemExit(f"unknown tuning key {key!r}; known: {', '.join(types)}")
        kind = str(types[name])
        changes[cls][name] = (int(value) if kind == "int" else float(value) if kind == "float"
                              else value)
    return replace(Tuning(), **changes[Tuning]), replace(DeepTuning(), **changes[DeepTuning])


def report(result: dict[str, Any]) -> str:
    lines = [f"{'method':<24}{'cat':<10}{'n':>5}{'R@5':>8}{'R@10':>8}{'R@25':>8}{'hit@10':>8}"
             f"{'MRR':>8}"]
    for name, body in result["methods"].items():
        for cat, m in [("overall", body["overall"]), *body["by_category"].items()]:
            lines.append(f"{name:<24}{cat:<10}{m['questions']:>5}{m['recall@5']:>8.1f}"
                         f"{m['recall@10']:>8.1f}{m['recall@25']:>8.1f}{m['hit@10']:>8.1f}"
                         f"{m['mrr']:>8.3f}")
        lat = body.get("latency_ms", {})
        lines.append(f"{name:<24}latency ms p50 {lat.get('p50')} p95 {lat.get('p95')}")
    return "\n".join(lines)


def _corpora(args: argparse.Namespace) -> list[Corpus]:
    if args.data is None or (args.suite == "musique" and args.corpus is None):
        raise InvalidInput("--data FILE is required (and --corpus FILE for musique)")
    if args.suite == "musique":
        return split_corpora([load_musique(args.data, args.corpus)], args.split, True)
    return split_corpora(load_locomo(args.data), args.split, False)


def _run(args: argparse.Namespace, settings: Settings) -> dict[str, Any]:
    if not (f"{args.prefix}-".startswith(BENCH_PREFIX) or args.keep or args.reuse):
        raise InvalidInput("only bench-* projects are deleted after a run: a --prefix of "
                           "another name needs --keep or --reuse")
    clock = coding.ReplayClock()  # the real time unless a coding project is being replayed
    brain = Brain(settings, clock=clock)
    is_coding = args.suite == "coding"
    try:
        search = Search(brain.deps, *parse_tuning(args.tuning))
        every = build(search, Search(brain.deps, **unfloored(search)), Baselines(brain.deps),
                      Fusion(brain.deps), args.hops,
                      coding.DEPTH if is_coding else DEPTH)
        calls = {m: every[m] for m in args.methods}
        meta = {"suite": args.suite, "split": args.split, "hops": args.hops,
                "tuning": asdict(search.tuning), "deep_tuning": asdict(search.deep_tuning)}
        if is_coding:
            projects = shipped_projects(args.projects,
                                        None if args.split == "all" else args.split)
            return coding.run_coding(brain, projects, calls, clock, run_id(args.run_id),
                                     args.lookalikes, args.seed, args.keep, args.reuse,
                                     args.prefix, rewordings_of(args.rewordings)
                                     if args.rewordings else None) | meta | {
                "lookalikes_per_project": args.lookalikes, "seed": args.seed,
                "rewordings": str(args.rewordings) if args.rewordings else None}
        corpora = _corpora(args)
        paths = list(WRITE_PATHS) if args.write_path == "both" else [args.write_path]
        results = {p: run_corpora(brain, calls, corpora, args.keep, not args.no_reply_context,
                                  args.reuse, p, args.prefix, args.run_id) for p in paths}
        return merge_write_paths(results) | meta | {"data": str(args.data)}
    finally:
        brain.close()


def cmd_retrieval(args: argparse.Namespace, settings: Settings) -> int:
    result = _run(args, settings)
    if args.split != "tune":
        read = sorted(result["projects"]) if args.suite == "coding" else [
            str(p) for p in (args.data, args.corpus) if p is not None]
        record_check_run(args.suite, args.split, read, args.out)
    text = coding.report(result) if args.suite == "coding" else report(result)
    sys.stdout.write(text + "\n")
    if args.out:
        result["provenance"] = provenance(settings)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=2, default=str) + "\n", encoding="utf-8")
    return 0


def add_parser(kinds: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = kinds.add_parser("retrieval", help="retrieval quality: LoCoMo, MuSiQue, the coding set")
    p.add_argument("--suite", choices=("locomo", "musique", "coding"), default="locomo")
    p.add_argument("--split", choices=SPLITS, default="check",
                   help="which part of the data: check (the reported result), tune (choose "
                        "defaults here only) or all; fixed once by a seed (bench/datasets.py)")
    p.add_argument("--data", type=Path, help="LoCoMo-format JSON (musique: the questions file)")
    p.add_argument("--corpus", type=Path, help="musique: the pooled passages file")
    p.add_argument("--write-path", choices=(*WRITE_PATHS, "both"), default="import",
                   help="locomo/musique: bulk import, add_memory per turn, or both side by side")
    p.add_argument("--projects", nargs="+", metavar="NAME",
                   help="coding: only these projects of the shipped set")
    p.add_argument("--rewordings", type=Path, metavar="FILE",
                   help="coding: ask only the questions FILE rewords "
                        "(bench/data/coding/tune-rewordings*.json), in its wordings")
    p.add_argument("--lookalikes", type=int, default=300,
                   help="coding: look-alike notes generated per project")
    p.add_argument("--seed", type=int, default=7, help="coding: look-alike generator seed")
    p.add_argument("--out", type=Path, help="write the result JSON here")
    p.add_argument("--methods", nargs="+", choices=METHODS, default=list(METHODS))
    p.add_argument("--hops", type=int, default=DEEP_HOPS)
    p.add_argument("--tuning", nargs="*", default=[], metavar="KEY=VALUE")
    p.add_argument("--keep", action="store_true", help="keep the bench projects afterwards")
    p.add_argument("--reuse", type=Path, metavar="MANIFEST",
                   help="reuse the projects listed in MANIFEST (written, kept and listed "
                        "there if missing)")
    p.add_argument("--prefix", default="bench",
                   help="the written projects' names start with this (own them on a shared "
                        "server); other than bench, they are kept: with --keep or --reuse")
    p.add_argument("--run-id", metavar="ID",
                   help="the written projects' run id (default: a random one); each note's "
                        "context names its project and is embedded, so two writes store the "
                        "same vectors only under one id, run one after the other")
    p.add_argument("--no-reply-context", action="store_true",
                   help="import turns without the turn they answer in their context")
    p.set_defaults(handler=cmd_retrieval)
