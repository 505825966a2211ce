"""`python -m bench.identifiers`: questions by an exact identifier on the identifier suite
(bench/data/identifiers-r2, see bench/identifiers_data.py), through the real store.

Each project's notes (the real ones and their look-alikes, in the order written) go into a
project of their own through the bulk import, with their sentences jobs run; every question
then goes through search_memory, deep_search, the flat cosine and the numpy fusion. Scored:
hit@1 (the note holding the identifier first) overall, per form and per shape, and for the
identifiers no note holds, how often each search answers with nothing (the flat cosine and the
fusion have no floor and always answer). `--reuse MANIFEST`: the projects it lists are read as
stored (a first run writes them and the manifest), so two checkouts score the same stored
notes. Nothing is keyed on the suite's ids or texts.
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from bench.baselines import Baselines, Fusion
from bench.common import delete_bench_project, emit_result, run_id, write_into
from bench.ingest import run_sentences
from bench.methods import Method, build, unfloored
from kg_brain.base.settings import Settings, load_settings
from kg_brain.domain.ranking import DEEP_HOPS
from kg_brain.domain.search import Search
from kg_brain.root.app import Brain

log = logging.getLogger(__name__)
DATA = Path(__file__).parent / "data" / "identifiers-r2"
METHODS = ("search_memory", "deep_search", "vector", "fusion")
NO_FLOOR = ("vector", "fusion")  # they always answer: no nothing-stored figure
DEPTH = 10


def write_project(brain: Brain, data: dict[str, Any], project: str) -> dict[str, str]:
    """The notes in order through the bulk import, then their sentences jobs; key -> zk_id."""
    ids = brain.importer.add_many([{"content": n["content"], "project": project}
                                   for n in data["notes"]])
    run_sentences(brain, project)
    brain.deps.index_fetch.forget(project)
    return {n["key"]: z for n, z in zip(data["notes"], ids, strict=True)}


def _rate(hits: int, of: int) -> float | None:
    return round(100.0 * hits / of, 2) if of else None


def _tally(rows: list[dict[str, Any]], method: str, by: str) -> dict[str, Any]:
    groups: dict[str, list[bool]] = defaultdict(list)
    for row in rows:
        groups[row[by]].append(row["ranks"][method] == 1)
    return {k: {"n": len(v), "hit@1": _rate(sum(v), len(v))} for k, v in sorted(groups.items())}


def score(rows: list[dict[str, Any]], absent: list[dict[str, Any]]) -> dict[str, Any]:
    """hit@1 overall, per form and per shape of each method; nothing-stored answered with
    nothing of the product's searches."""
    out: dict[str, Any] = {}
    for method in METHODS:
        firsts = [r["ranks"][method] == 1 for r in rows]
        body: dict[str, Any] = {"questions": len(rows),
                                "hit@1": _rate(sum(firsts), len(firsts)),
                                "by_form": _tally(rows, method, "form"),
                                "by_shape": _tally(rows, method, "shape")}
        if method not in NO_FLOOR:
            empty = [not a["answered"][method] for a in absent]
            body["absent_answered_with_nothing"] = _rate(sum(empty), len(empty))
            body["absent_answered_by_form"] = dict(sorted(
                (f, sum(1 for a in absent if a["form"] == f and a["answered"][method]))
                for f in {a["form"] for a in absent}))
        out[method] = body
    return out


def run(settings: Settings, data_dir: Path, reuse: Path | None, keep: bool,
        run: str | None) -> dict[str, Any]:
    brain = Brain(settings)
    run = run_id(run)
    manifest: dict[str, Any] = (json.loads(reuse.read_text(encoding="utf-8"))
                                if reuse and reuse.exists() else {})
    rows: list[dict[str, Any]] = []
    absent: list[dict[str, Any]] = []
    try:
        search = Search(brain.deps)
        every = build(search, Search(brain.deps, **unfloored(search)), Baselines(brain.deps),
                      Fusion(brain.deps), DEEP_HOPS, DEPTH)
        calls: dict[str, Method] = {m: every[m] for m in METHODS}
        for path in sorted(data_dir.glob("*.json")):
            data = json.loads(path.read_text(encoding="utf-8"))
            if data["name"] in manifest:
                project, ids = manifest[data["name"]]["project"], manifest[data["name"]]["ids"]
            else:
                project = write_into(brain.db, f"bench-{run}-{data['name']}")
                began = time.monotonic()
                ids = write_project(brain, data, project)
                log.info("%s: %d notes in %.1f s", project, len(ids), time.monotonic() - began)
                if reuse:
                    manifest[data["name"]] = {"project": project, "ids": ids}
                    reuse.write_text(json.dumps(manifest), encoding="utf-8")
            keys = {z: k for k, z in ids.items()}
            try:
                for q in data["questions"]:
                    expected = {ids[k] for k in q["expected"]}
                    ranks, tops = {}, {}
                    for name, call in calls.items():
                        ranked, _ = call(q["text"], project, False)
                        ranks[name] = next((i for i, z in enumerate(ranked, 1)
                                            if z in expected), None)
                        tops[name] = keys.get(ranked[0]) if ranked else None
                    rows.append({"project": data["name"], "text": q["text"], "form": q["form"],
                                 "shape": q["shape"], "expected": q["expected"],
                                 "ranks": ranks, "top": tops})
                for a in data["absent"]:
                    answered = {}
                    for name in METHODS:
                        if name in NO_FLOOR:
                            continue
                        ranked, _ = calls[name](a["text"], project, False)
                        answered[name] = [keys.get(z) for z in ranked[:2]]
                    absent.append({"project": data["name"], "text": a["text"],
                                   "form": a["form"], "shape": a["shape"],
                                   "answered": answered})
            finally:
                if not (keep or reuse):
                    delete_bench_project(brain.db, project)
    finally:
        brain.close()
    misses = [r for r in rows if r["ranks"]["search_memory"] != 1
              or r["ranks"]["deep_search"] != 1]
    return {"suite": str(data_dir), "methods": score(rows, absent),
            "misses": misses, "absent_answered": [a for a in absent
                                                  if any(a["answered"].values())]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--reuse", type=Path, metavar="MANIFEST",
                        help="read the projects it lists as stored; write and list the others")
    parser.add_argument("--keep", action="store_true", help="keep the projects written")
    parser.add_argument("--run-id", help="the projects' run id (default: a random one)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    result = run(load_settings(), args.data, args.reuse, args.keep, args.run_id)
    emit_result(result, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
