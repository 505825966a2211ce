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

`--floor-share P...` chooses the relevance floor of a project searched word by word instead
(KNOWN_FLOOR, UNKNOWN_STEP and LACKED_STEP of kg_brain/domain/ranking.py), by
leave-one-project-out too: for each coding project, the floor of FLOORS, STEPS and LACKED that
answers at least P% of the other projects' questions about nothing stored with nothing and puts
the most of their expected notes first, applied to it; the result holds, for each P (the trade
as a curve), the floors of each fold and the per-kind figures left out, the same with no step
per lacked word (no_lacked) and with the floor alone (floor_alone), and, in-sample, each floor's
lookups, hit@1 and share answered with nothing.

`--rewordings FILE...` (bench/data/coding/tune-rewordings-values-*.json) scores, per question
kind, the questions those files reword as written and in each file's wordings: search_memory's
mirror under today's constants and the flat cosine beside it.

`--why KIND` says, for each question of that kind whose expected note search_memory does not
put first, which of its rules puts it there when switched off alone (RULES_OFF: the relevance
floor for a question answered with nothing; the current value first, the session, the fix lift
and the superseded factor otherwise); one no rule moves is lost in the two channels. Each
says whether the fusion baseline (bench/ranking.py fusion) puts its expected note first.
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
from functools import partial
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
    Floor,
    Notes,
    before_floor,
    by_kind,
    chat_signals,
    flat,
    fusion,
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
FLOORS = [round(0.2 + 0.01 * i, 2) for i in range(45)]  # the relevance floors tried
STEPS = [0.0, 0.02, 0.04, 0.06, 0.08, 0.1, 0.12, 0.15]  # ... and what an unknown word adds
LACKED = [0.0, 0.02, 0.04, 0.06]  # ... and a known word the hit lacks
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


def floored(projects: list[Project], start: Tuning,
            floors: list[Floor]) -> dict[Floor, list[Rows]]:
    """Each project's rows under each relevance floor of `floors` (bench/ranking.py rank's).
    A question is ranked once without the floor (Reach: what the floor reads of its best
    hits), then answered with nothing under a floor no hit passes."""
    asked = [(score(notes, qs, start, partial(rank, floor=(-1.0, 0.0, 0.0))),
              [before_floor(notes, q, start)[1] for q in qs]) for notes, qs in projects]
    nothing = {"hit@1": 0.0, "mrr": 0.0, "all@3": 0.0, "recall@10": 0.0, "right": 0.0}
    return {floor: [[(kind, {"nothing": 100.0 * (not answered)} if kind == ABSENT
                          else m if answered else nothing)
                     for (kind, m), answered in zip(rows, [r.relevant(floor) for r in reach],
                                                    strict=True)]
                    for rows, reach in asked]
            for floor in floors}


def floor_left_out(projects: list[Project], share: float, start: Tuning,
                   steps: list[float] = STEPS,
                   lacked: list[float] = LACKED) -> tuple[list[Floor], Rows]:
    """Each coding project scored at the floor of FLOORS, `steps` (per unknown word) and
    `lacked` (per known word a hit lacks) that answers at least `share`% of the other projects'
    questions about nothing stored with nothing and puts the most of their expected notes first
    (ties: the smaller steps, then the lower floor; the highest floor of no steps when none
    does): the floor of each fold and the rows left out."""
    floors = [(f, step, lack) for lack in lacked for step in steps for f in FLOORS]
    rows = floored(projects, start, floors)
    chosen, left_out = [], []
    for i in range(len(projects)):
        others = {p: [r for j, got in enumerate(rows[p]) if j != i for r in got] for p in floors}
        enough = [p for p in floors if nothing_share(others[p]) >= share]
        floor = max(enough, key=lambda p: (sum(m["hit@1"] for k, m in others[p] if k != ABSENT),
                                           -p[2], -p[1], -p[0])) if enough \
            else (FLOORS[-1], 0.0, 0.0)
        chosen.append(floor)
        left_out += rows[floor][i]
    return chosen, left_out


def why(projects: list[Project], kind: str, start: Tuning) -> dict[str, Any]:
    """Each question of `kind` whose expected note is not first under `start`: answered with
    nothing (and first without the floor, or not), or the rules of RULES_OFF that each, switched
    off alone, put it first ("channels" when none does), and whether the fusion baseline puts
    it first; how many questions each reason holds, and of them the fusion puts first."""
    rows: list[dict[str, Any]] = []
    for p, (notes, asked) in enumerate(projects):
        for i, q in enumerate(asked):
            ranked = rank(notes, q, start)
            if q.kind != kind or (ranked and ranked[0] in q.expected):
                continue
            if not ranked:
                first = rank(notes, q, start, floor=(-1.0, 0.0, 0.0))[0] in q.expected
                reasons = ["floor" if first else "floor_and_channels"]
            else:
                reasons = [name for name, off in RULES_OFF.items()
                           if (got := rank(notes, q, replace(start, **off)))
                           and got[0] in q.expected]
            answered = fusion(notes, q, start)
            rows.append({"project": p, "question": i, "reasons": reasons or ["channels"],
                         "best_cosine": round(float(max(q.cosine[list(q.expected)])), 3),
                         "fusion_first": bool(answered) and answered[0] in q.expected})
    counts: dict[str, int] = {}
    fusion_first: dict[str, int] = {}
    for row in rows:
        for reason in row["reasons"]:
            counts[reason] = counts.get(reason, 0) + 1
            fusion_first[reason] = fusion_first.get(reason, 0) + row["fusion_first"]
    return {"kind": kind, "asked": sum(q.kind == kind for _, asked in projects for q in asked),
            "not_first": len(rows), "reasons": counts, "fusion_first": fusion_first,
            "questions": rows}


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
    p.add_argument("--floor-share", type=float, nargs="+", metavar="P",
                   help="choose the relevance floor instead, for each P: the one that answers P%% "
                        "of the questions about nothing stored with nothing, by "
                        "leave-one-project-out")
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
        t = Tuning()
        in_sample = floored(projects, t, [(f, s, lack) for lack in LACKED for s in STEPS
                                          for f in FLOORS])
        floors: dict[str, Any] = {"shares": [], "in_sample": [
            {"floor": f, "step": s, "lacked": lack} | {
                k: v["nothing" if k == ABSENT else "hit@1"] for k, v in by_kind(
                    [r for got in rows for r in got]).items() if k in ("overall", "lookup", ABSENT)}
            for (f, s, lack), rows in in_sample.items()]}
        for share in args.floor_share:
            got: dict[str, Any] = {"share": share}
            for name, steps, lacked in (("floor", STEPS, LACKED), ("no_lacked", STEPS, [0.0]),
                                        ("floor_alone", [0.0], [0.0])):
                per_fold, left_out = floor_left_out(projects, share, t, steps, lacked)
                got[name] = {"floors": per_fold, "left_out": by_kind(left_out)}
            floors["shares"].append(got)
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
