"""`python -m bench.fit_ranking MANIFEST`: fit search_memory's ranking constants on the tuning
splits (the coding set, and LoCoMo with `--locomo`).

MANIFEST lists the coding tuning projects as written by
`kg-brain bench retrieval --suite coding --split tune --reuse MANIFEST`; `--locomo` names the
LoCoMo tuning conversations written through add_memory the same way. Their signals are read
once (bench/ranking.py; cached in `--cache`, `--chat-cache`), then the constants of
kg_brain/domain/ranking.py Tuning named in GRID are searched by coordinate ascent on the numpy
mirror of the statement. The objective gives each suite the same weight: for the coding set the mean
over question kinds of the share answered right (the expected note first with no outdated
note above its successor nor a mistake above its fix; every needed note in the top 3 for
multi-note questions) plus a hundredth of the MRR to break ties, for LoCoMo the evidence
recall@10; a fit answering fewer than NOTHING (80%) of the questions about nothing stored with
nothing loses the shortfall. Which constants are fitted (a VARIANT) is chosen by
leave-one-project-out on the coding projects: each variant is fitted on all of them but one
(and the chat suite) and scored on that one, in turn; the best wins and is refitted on
everything. The result (the constants, per-kind figures of the defaults and of the fit,
in-sample and left out) is printed or saved with `--out`; the constants go into Tuning by hand.

`--floor-share P` chooses the relevance floor (Tuning.floor) instead, by leave-one-project-out
too: for each coding project, the lowest of FLOORS that answers at least P% of the other
projects' questions about nothing stored with nothing, applied to it; the result holds the
floor of each fold, the per-kind figures left out and those of each floor in-sample.

`--rewordings FILE...` (bench/data/coding/tune-rewordings-values-*.json) scores, per question
kind, the questions those files reword as written and in each file's wordings: search_memory's
mirror under today's constants and the flat cosine beside it.

`--why KIND` says, for each question of that kind whose expected note search_memory does not
put first, which of its rules puts it there when switched off alone (RULES_OFF: the relevance
floor for a question answered with nothing; the current value first, the session, the fix lift
and the superseded factor otherwise); one no rule moves is lost in the two channels.
"""

from __future__ import annotations

import argparse
import json
import logging
import pickle
import sys
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from bench.coding_data import rewordings_of, shipped_projects
from bench.common import emit_result
from bench.datasets import load_locomo, split_corpora
from bench.ranking import (
    ABSENT,
    CHAT,
    Asked,
    Notes,
    by_kind,
    chat_signals,
    flat,
    rank,
    reworded,
    score,
    signals,
)
from kg_brain.base.settings import Settings, load_settings
from kg_brain.domain.ranking import Tuning
from kg_brain.root.app import Brain

log = logging.getLogger(__name__)
Project = tuple[Notes, list[Asked]]
T = TypeVar("T")
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
    "session_after": [0.0, 0.2, 0.35, 0.5, 0.7],
    "session_before": [0.0, 0.1, 0.2, 0.3],
    "same_n": [0, 3, 10, 20],
}
CHANNELS = ["w_lex", "lex_title", "lex_keywords", "lex_context", "w_exact", "exact_df", "pool"]
RULES = ["superseded", "supersede_share", "fix_lift", "session_after", "session_before",
         "same_n"]
VARIANTS = {
    "channels": CHANNELS,
    "channels_span": [*CHANNELS, "vec_span"],
    "fusion": ["w_lex", "vec_span"],
    "rules": RULES,
    "all": list(GRID),
}
PASSES = 2
# Each project's rows under the constants last tried, kept for reuse: the folds of
# leave-one-project-out start alike and mostly move alike, so they try many of the same
# constants on the same projects.
KEPT = 4_000
FLOORS = [round(0.30 + 0.01 * i, 2) for i in range(31)]  # the relevance floors tried
# Least share (%) of the questions about nothing stored answered with nothing (the issue's
# target): a fit below it loses the shortfall. Without it, refitting the lexical weights moved
# the full-text scores under the fixed lex_floor and left out of the fit answered 49% of them
# with nothing (leave-one-project-out of the channel weights on the coding tuning projects).
NOTHING = 80.0
# `--why`: each rule of search_memory switched off, as constants of Tuning
RULES_OFF: dict[str, dict[str, Any]] = {
    "current_first": {"same_n": 0},
    "session": {"session_after": 0.0, "session_before": 0.0},
    "fix_lift": {"fix_lift": 0.0},
    "superseded": {"superseded": 1.0},
}


def objective(rows: list[tuple[str, dict[str, float]]]) -> float:
    """The coding questions' mean over kinds and the chat questions' recall@10, each suite
    counting alike, less the shortfall of questions about nothing stored answered with nothing
    below NOTHING."""
    kinds = by_kind([r for r in rows if r[0] != CHAT])
    means = [m["all@3" if k == "multi_note" else "right"] + m["mrr"]
             for k, m in kinds.items() if k not in ("overall", ABSENT)]
    chat = [m["recall@10"] for k, m in rows if k == CHAT]
    suites = ([float(np.mean(means))] if means else []) + ([float(np.mean(chat))] if chat else [])
    shortfall = max(0.0, NOTHING - kinds[ABSENT]["nothing"]) if ABSENT in kinds else 0.0
    return (float(np.mean(suites)) if suites else 0.0) - shortfall


Rows = list[tuple[str, dict[str, float]]]


class Scorer:
    """The rows of projects under constants; a project's rows under the same constants are
    computed once (of the last KEPT)."""

    def __init__(self) -> None:
        self.kept: OrderedDict[tuple[int, Tuning], tuple[list[Asked], Rows]] = OrderedDict()

    def __call__(self, projects: list[Project], t: Tuning) -> Rows:
        out: Rows = []
        for notes, asked in projects:
            key = (id(asked), t)  # the entry holds `asked`: its id stays its own
            if key in self.kept:
                self.kept.move_to_end(key)
            else:
                self.kept[key] = (asked, score(notes, asked, t))
                if len(self.kept) > KEPT:
                    self.kept.popitem(last=False)
            out += self.kept[key][1]
        return out


def evaluate(projects: list[Project], t: Tuning) -> Rows:
    return [row for notes, asked in projects for row in score(notes, asked, t)]


def fit(projects: list[Project], names: list[str], start: Tuning,
        scorer: Scorer | None = None) -> Tuning:
    """Coordinate ascent over GRID for the constants `names`, from `start`."""
    evaluate = scorer or Scorer()
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


def leave_one_out(projects: list[Project], chat: list[Project], names: list[str],
                  start: Tuning, scorer: Scorer) -> list[tuple[Tuning, Rows]]:
    """Each coding project's constants fitted on the others and the chat suite, and its rows
    under them."""
    folds = []
    for i, held in enumerate(projects):
        fitted = fit(projects[:i] + projects[i + 1:] + chat, names, start, scorer)
        log.info("fold %d: %s", i, {n: getattr(fitted, n) for n in names})
        folds.append((fitted, scorer([held], fitted)))
    return folds


def nothing_share(rows: list[tuple[str, dict[str, float]]]) -> float:
    """The share (%) of the questions about nothing stored answered with nothing (100 if none)."""
    got = [m["nothing"] for k, m in rows if k == ABSENT]
    return float(np.mean(got)) if got else 100.0


def floor_left_out(projects: list[Project], share: float,
                   start: Tuning) -> tuple[list[float], list[tuple[str, dict[str, float]]]]:
    """Each coding project scored at the lowest of FLOORS that answers at least `share`% of the
    other projects' questions about nothing stored with nothing (the highest when none does):
    the floor of each fold and the rows left out."""
    rows = {f: [score(notes, asked, replace(start, floor=f)) for notes, asked in projects]
            for f in FLOORS}
    chosen, left_out = [], []
    for i in range(len(projects)):
        floor = next((f for f in FLOORS if nothing_share(
            [r for j, got in enumerate(rows[f]) if j != i for r in got]) >= share), FLOORS[-1])
        chosen.append(floor)
        left_out += rows[floor][i]
    return chosen, left_out


def why(projects: list[Project], kind: str, start: Tuning) -> dict[str, Any]:
    """Each question of `kind` whose expected note is not first under `start`: answered with
    nothing (and first without the floor, or not), or the rules of RULES_OFF that each, switched
    off alone, put it first ("channels" when none does); how many questions each reason holds."""
    unfloored = replace(start, floor=-1.0)
    rows: list[dict[str, Any]] = []
    for p, (notes, asked) in enumerate(projects):
        for i, q in enumerate(asked):
            ranked = rank(notes, q, start)
            if q.kind != kind or (ranked and ranked[0] in q.expected):
                continue
            if not ranked:
                first = rank(notes, q, unfloored)[0] in q.expected
                reasons = ["floor" if first else "floor_and_channels"]
            else:
                reasons = [name for name, off in RULES_OFF.items()
                           if (got := rank(notes, q, replace(start, **off)))
                           and got[0] in q.expected]
            rows.append({"project": p, "question": i, "reasons": reasons or ["channels"],
                         "best_cosine": round(float(max(q.cosine[list(q.expected)])), 3)})
    counts: dict[str, int] = {}
    for row in rows:
        for reason in row["reasons"]:
            counts[reason] = counts.get(reason, 0) + 1
    return {"kind": kind, "asked": sum(q.kind == kind for _, asked in projects for q in asked),
            "not_first": len(rows), "reasons": counts, "questions": rows}


def cached(cache: Path | None, read: Callable[[Brain], T], settings: Settings) -> T:
    """What `read` reads from the database, kept in `cache` (read if present, else written)."""
    if cache and cache.exists():
        kept: T = pickle.loads(cache.read_bytes())  # this program's own file
        return kept
    brain = Brain(settings)
    try:
        projects = read(brain)
    finally:
        brain.close()
    if cache:
        cache.write_bytes(pickle.dumps(projects))
    return projects


def load(manifest: Path, cache: Path | None, settings: Settings) -> list[Project]:
    """The coding tuning projects' signals."""
    written = json.loads(manifest.read_text(encoding="utf-8"))
    return cached(cache, lambda brain: [
        signals(brain.db, brain.deps.embedder, data, written[data.name]["project"],
                written[data.name]["ids"]) for data in shipped_projects(sorted(written), "tune")],
        settings)


def load_reworded(manifest: Path, path: Path, projects: list[Project], cache: Path | None,
                  settings: Settings) -> list[Project]:
    """The coding tuning projects' notes (`projects`) with the signals of the other wordings
    `path` holds of their questions (bench/data/coding/tune-rewordings*.json)."""
    written = json.loads(manifest.read_text(encoding="utf-8"))
    other = rewordings_of(path)
    shipped = shipped_projects(sorted(written), "tune")
    asked = cached(cache, lambda brain: [
        reworded(brain.db, brain.deps.embedder, notes, data, written[data.name]["project"],
                 written[data.name]["ids"], other)
        for (notes, _), data in zip(projects, shipped, strict=True)], settings)
    return [(notes, got) for (notes, _), got in zip(projects, asked, strict=True)]


def as_written(manifest: Path, projects: list[Project],
               keys: set[tuple[str, str]]) -> list[Project]:
    """The coding tuning projects with only their questions `keys` names ((project name,
    question) pairs), as written."""
    shipped = shipped_projects(sorted(json.loads(manifest.read_text(encoding="utf-8"))), "tune")
    return [(notes, [a for a, q in zip(asked, data.questions, strict=False)
                     if (data.name, q.text) in keys])
            for (notes, asked), data in zip(projects, shipped, strict=True)]


def wordings(sets: dict[str, list[Project]], t: Tuning) -> dict[str, Any]:
    """Per wording (the questions as written, and each rewordings file), per question kind:
    search_memory's mirror under `t` and the flat cosine, over the questions reworded."""
    return {name: {"search_memory": by_kind(evaluate(projects, t)),
                   "flat": by_kind([r for notes, asked in projects
                                    for r in score(notes, asked, t, flat)])}
            for name, projects in sets.items()}


def load_chat(manifest: Path, data: Path, cache: Path | None,
              settings: Settings) -> list[Project]:
    """The LoCoMo tuning conversations' signals, as written through add_memory."""
    entries = [e for e in json.loads(manifest.read_text(encoding="utf-8"))
               if e["write_path"] == "add"]
    corpora = split_corpora(load_locomo(data), "tune", False)
    return cached(cache, lambda brain: [
        chat_signals(brain.db, brain.deps.embedder, corpus, e["project"],
                     {(s, t): z for s, t, z in e["ids"]})
        for corpus, e in zip(corpora, entries, strict=True)], settings)


def _emit(result: dict[str, Any], out: Path | None, settings: Settings) -> None:
    """`result` written to `out`, or printed."""
    if out:
        emit_result(result, out, settings)
    else:
        sys.stdout.write(json.dumps(result, indent=2) + "\n")


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    p = argparse.ArgumentParser(prog="python -m bench.fit_ranking", description=__doc__)
    p.add_argument("manifest", type=Path, help="coding tuning projects written with --reuse")
    p.add_argument("--cache", type=Path, help="signals cache (read if present, else written)")
    p.add_argument("--locomo", type=Path, metavar="MANIFEST",
                   help="the LoCoMo tuning conversations written through add_memory with "
                        "`bench retrieval --suite locomo --split tune --write-path add --reuse`")
    p.add_argument("--data", type=Path, help="the LoCoMo-format file they were written from")
    p.add_argument("--chat-cache", type=Path, help="their signals cache")
    p.add_argument("--out", type=Path, help="write the result JSON here")
    p.add_argument("--variants", nargs="+", choices=list(VARIANTS), default=list(VARIANTS),
                   help="the variants compared by leave-one-project-out")
    p.add_argument("--floor-share", type=float, metavar="P",
                   help="choose the relevance floor instead: the lowest that answers P%% of the "
                        "questions about nothing stored with nothing, by leave-one-project-out")
    p.add_argument("--rewordings", type=Path, nargs="+", metavar="FILE",
                   help="score the questions these files reword, as written and in each "
                        "file's wordings, per kind, instead (the signals of FILE cached in "
                        "CACHE.<file name> with --cache)")
    p.add_argument("--why", metavar="KIND",
                   help="say which rule keeps the expected note of each question of KIND from "
                        "first place instead")
    args = p.parse_args(argv)
    settings = load_settings()
    projects = load(args.manifest, args.cache, settings)
    if args.rewordings:
        sets = {path.stem: load_reworded(
            args.manifest, path, projects,
            args.cache.with_name(f"{args.cache.name}.{path.stem}") if args.cache else None,
            settings) for path in args.rewordings}
        keys = {key for path in args.rewordings for key in rewordings_of(path)}
        _emit(wordings({"original": as_written(args.manifest, projects, keys)} | sets,
                       Tuning()), args.out, settings)
        return 0
    if args.why:
        explained = why(projects, args.why, Tuning())
        _emit(explained, args.out, settings)
        return 0
    if args.floor_share is not None:
        per_fold, left_out = floor_left_out(projects, args.floor_share, Tuning())
        floors: dict[str, Any] = {
            "floors": per_fold, "left_out": by_kind(left_out),
            "in_sample": {str(f): by_kind(evaluate(projects, replace(Tuning(), floor=f)))
                          for f in FLOORS}}
        _emit(floors, args.out, settings)
        return 0
    chat = load_chat(args.locomo, args.data, args.chat_cache, settings) if args.locomo else []
    start = Tuning()
    scorer = Scorer()
    held = sorted(json.loads(args.manifest.read_text(encoding="utf-8")))
    kept = [scorer([p], start) for p in projects]
    result: dict[str, Any] = {
        "defaults": by_kind(scorer(projects + chat, start)),
        "defaults_coding_objective": objective([r for rows in kept for r in rows]),
        "variants": {}}
    for variant in args.variants:
        names = VARIANTS[variant]
        folds = leave_one_out(projects, chat, names, start, scorer)
        left_out = [r for _, rows in folds for r in rows]
        result["variants"][variant] = {
            "left_out": by_kind(left_out), "objective": objective(left_out),
            "folds": [{"project": name, "constants": {n: getattr(t, n) for n in names},
                       "left_out": by_kind(rows)["overall"],
                       "defaults": by_kind(before)["overall"]}
                      for name, (t, rows), before in zip(held, folds, kept, strict=True)]}
        log.info("%s: left-out objective %.2f", variant, objective(left_out))
    chosen = max(result["variants"], key=lambda v: result["variants"][v]["objective"])
    fitted = fit(projects + chat, VARIANTS[chosen], start, scorer)
    result |= {"chosen": chosen, "fitted": by_kind(scorer(projects + chat, fitted)),
               "objective": objective(scorer(projects + chat, fitted)),
               "constants": {k: v for k, v in asdict(fitted).items() if k in GRID}}
    _emit(result, args.out, settings)
    return 0


if __name__ == "__main__":
    sys.exit(main())
