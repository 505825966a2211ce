"""`python -m bench.fit_ranking MANIFEST`: fit search_memory's ranking constants on the coding
tuning split.

MANIFEST lists the tuning projects as written by
`kg-brain bench retrieval --suite coding --split tune --reuse MANIFEST`. Their signals are read
once (bench/ranking.py; cached in `--cache`), then the constants of kg_brain/search.py Tuning
that weigh them are searched by coordinate ascent over GRID on the numpy mirror of the
statement. The objective is the mean over question kinds of the share answered right (the
expected note first with no outdated note above its successor nor a mistake above its fix;
every needed note in the top 3 for multi-note questions), each kind counting alike, plus a
hundredth of the MRR to break ties. Which
constants are fitted (a VARIANT) is chosen by leave-one-project-out: each variant is fitted on
all projects but one and scored on that one, in turn; the best mean wins and is refitted on
every project. The result (the constants, per-kind figures of the defaults and of the fit,
in-sample and left out) is printed and saved with `--out`; the constants go into Tuning by hand.
"""

from __future__ import annotations

import argparse
import json
import logging
import pickle
import sys
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import numpy as np

from bench.coding_data import shipped_projects
from bench.ranking import ABSENT, Asked, Notes, by_kind, score, signals
from kg_brain.app import Brain
from kg_brain.search import Tuning
from kg_brain.settings import Settings, load_settings

log = logging.getLogger(__name__)
Project = tuple[Notes, list[Asked]]
GRID: dict[str, list[Any]] = {
    "w_lex": [0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0],
    "lex_title": [0.0, 0.25, 0.5, 1.0, 2.0],
    "lex_keywords": [0.0, 0.25, 0.5, 1.0],
    "lex_context": [0.0, 0.25, 0.5],
    "w_exact": [0.0, 0.5, 1.0, 2.0, 4.0, 8.0],
    "exact_df": [1, 2, 3, 5, 8],
    "pool": [20, 40, 80],
    "superseded": [0.3, 0.45, 0.6, 0.8, 1.0],
    "supersede_share": [0.0, 0.5, 0.7, 0.8, 0.9, 1.0],
    "vec_span": [0.0, 0.2, 0.3, 0.5, 1.0],
    "fix_lift": [0.0, 0.9, 1.01, 1.2],
}
VARIANTS = {
    "channels": ["w_lex", "lex_title", "lex_keywords", "lex_context", "w_exact", "exact_df",
                 "pool"],
    "all": list(GRID),
}
PASSES = 3


def objective(rows: list[tuple[str, dict[str, float]]]) -> float:
    kinds = by_kind(rows)
    means = [m["all@3" if k == "multi_note" else "right"] + m["mrr"]
             for k, m in kinds.items() if k not in ("overall", ABSENT)]
    return float(np.mean(means)) if means else 0.0


def evaluate(projects: list[Project], t: Tuning) -> list[tuple[str, dict[str, float]]]:
    return [row for notes, asked in projects for row in score(notes, asked, t)]


def fit(projects: list[Project], names: list[str], start: Tuning) -> Tuning:
    """Coordinate ascent over GRID for the constants `names`, from `start`."""
    best, value = start, objective(evaluate(projects, start))
    for _ in range(PASSES):
        moved = False
        for name in names:
            for candidate in GRID[name]:
                if candidate == getattr(best, name):
                    continue
                trial = replace(best, **{name: candidate})
                got = objective(evaluate(projects, trial))
                if got > value + 1e-9:
                    best, value, moved = trial, got, True
        if not moved:
            break
    return best


def leave_one_out(projects: list[Project], names: list[str],
                  start: Tuning) -> list[tuple[str, dict[str, float]]]:
    """Each project scored under constants fitted on the others."""
    rows = []
    for i, held in enumerate(projects):
        fitted = fit(projects[:i] + projects[i + 1:], names, start)
        rows += evaluate([held], fitted)
    return rows


def load(manifest: Path, cache: Path | None, settings: Settings) -> list[Project]:
    if cache and cache.exists():
        cached: list[Project] = pickle.loads(cache.read_bytes())  # this program's own file
        return cached
    written = json.loads(manifest.read_text(encoding="utf-8"))
    brain = Brain(settings)
    try:
        projects = [signals(brain.db, brain.deps.embedder, data, written[data.name]["project"],
                            written[data.name]["ids"])
                    for data in shipped_projects(sorted(written), "tune")]
    finally:
        brain.close()
    if cache:
        cache.write_bytes(pickle.dumps(projects))
    return projects


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    p = argparse.ArgumentParser(prog="python -m bench.fit_ranking", description=__doc__)
    p.add_argument("manifest", type=Path, help="coding tuning projects written with --reuse")
    p.add_argument("--cache", type=Path, help="signals cache (read if present, else written)")
    p.add_argument("--out", type=Path, help="write the result JSON here")
    args = p.parse_args(argv)
    projects = load(args.manifest, args.cache, load_settings())
    start = Tuning()
    result: dict[str, Any] = {"defaults": by_kind(evaluate(projects, start)), "variants": {}}
    for variant, names in VARIANTS.items():
        left_out = leave_one_out(projects, names, start)
        result["variants"][variant] = {"left_out": by_kind(left_out),
                                       "objective": objective(left_out)}
        log.info("%s: left-out objective %.2f", variant, objective(left_out))
    chosen = max(result["variants"], key=lambda v: result["variants"][v]["objective"])
    fitted = fit(projects, VARIANTS[chosen], start)
    result |= {"chosen": chosen, "fitted": by_kind(evaluate(projects, fitted)),
               "tuning": {k: v for k, v in asdict(fitted).items() if k in GRID}}
    text = json.dumps(result, indent=2)
    sys.stdout.write(text + "\n")
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
