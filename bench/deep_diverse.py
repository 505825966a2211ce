"""`python -m bench.deep_diverse MANIFEST --locomo MANIFEST --data FILE --dump FILE --out FILE`:
steps after deep_search's last three that would place the notes a question needs together in
its best places, replayed in numpy on bench/deep_replay.py's dump (the statement's best DUMP_K
with the three steps off, the projects' notes) and chosen by leave-one-project-out on the
coding tuning split (LoCoMo in every fit) as bench/deep_replay.py chooses.

Each setting replays today's three steps (bench.deep_replay.replay), then one of:
- `mmr`: diversity in the best `head` places: from place `start` + 1 on, each place goes to
  the hit of the best `window` with the highest share of the first hit's score (`base`
  "score") or cosine to the query (`base` "cos") less `lam` times its highest cosine to the
  hits placed above it; the others follow in their order; the chosen keep theirs. The best
  `start` places stay (no hit@1 moves).
- `split`: `mmr` from place 3 to place 10 of the best 20 at `many` (lam, mix) for a question
  asking for several things (kg_brain.domain.question.asks_for_many), at `one` for the
  others.
- `prf`: a feedback slot: the project note nearest to the query blended with the best `m`
  hits' vectors (the query weighing `alpha`) not among the best `at - 1` takes place `at` when
  it ranks below it.
Each is scored as bench/fit_ranking.py scores the mirror; LoCoMo's multi-hop recall@10 is
reported apart (category 1). `chat_folds` chooses as the coding folds do with each LoCoMo
tuning conversation left out instead (the coding projects in every fit). `--statement` asks
the statement itself, as the code stands, every question of the dump instead (its best ten),
with its database time: run at two commits over the same stored projects, or with `--off` (the
unlike hits off) beside it, it measures the step through Neo4j.
"""

from __future__ import annotations

import itertools
import json
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np

import kg_brain.domain.search as search_module
from bench.coding import DEPTH
from bench.common import emit_result
from bench.deep_replay import (
    TODAY,
    Hit,
    Question,
    bridge,
    by_clause,
    dump,
    leads,
    near,
    row,
    tuning_questions,
)
from bench.fit_ranking import cached, objective
from bench.ranking import CHAT, Notes, by_kind
from bench.scale import TimedDatabase
from kg_brain.base.settings import load_settings
from kg_brain.domain.question import asks_for_many
from kg_brain.domain.ranking import DIVERSE_HEAD
from kg_brain.domain.search import Search, _excluded
from kg_brain.root.app import Brain

MULTI_HOP = "1"


def today(q: Question, notes: Notes, linked: set[tuple[str, str]]) -> list[Hit]:
    """The replay of today's three steps, as hits (bench.deep_replay.replay)."""
    s = TODAY
    hits = q.hits
    if hits and s["of"]:
        hits = near(hits, linked, s["gap"], int(s["of"]))
    if hits and len(q.clauses) and s["clause_of"]:
        at = {z: i for i, z in enumerate(notes.ids)}
        hits = by_clause(hits, notes.vectors[[at[h.id] for h in hits]], q.clauses,
                         int(s["clause_of"]))
    return bridge(hits, q, notes, int(s["bridge_at"]), s["bridge_rarity"], s["bridge_least"])


def mmr(hits: list[Hit], notes: Notes, head: int, window: int, lam: float,
        base: str, start: int = 1) -> list[Hit]:
    if len(hits) < 2 or lam <= 0:
        return hits
    at = {z: i for i, z in enumerate(notes.ids)}
    pool = [h for h in hits[:window] if h.id in at]
    if len(pool) < 2 or pool[0].id != hits[0].id:
        return hits
    v = notes.vectors[[at[h.id] for h in pool]]
    top = max(pool[0].score, 1e-9)
    share = np.array([h.score / top for h in pool])
    cos = np.array([h.relevance for h in pool])
    mix = {"score": 0.0, "cos": 1.0}.get(base, float(base[4:]) if base.startswith("mix") else 0)
    rel = (1.0 - mix) * share + mix * cos
    chosen = list(range(min(start, len(pool))))
    while len(chosen) < min(head, len(pool)):
        sim = (v @ v[chosen].T).max(axis=1)
        value = rel - lam * sim
        value[chosen] = -np.inf
        chosen.append(int(np.argmax(value)))
    chosen.sort()  # the chosen keep their order, as the clause step's
    ids = [pool[i].id for i in chosen]
    return [pool[i] for i in chosen] + [h for h in hits if h.id not in ids]


def prf(hits: list[Hit], q: Question, notes: Notes, at: int, m: int, alpha: float) -> list[Hit]:
    if at < 2 or len(hits) < at - 1:
        return hits
    index = {z: i for i, z in enumerate(notes.ids)}
    seeds = [index[h.id] for h in hits[:m] if h.id in index]
    if not seeds:
        return hits
    blend = alpha * q.vector + (1 - alpha) * notes.vectors[seeds].mean(axis=0)
    blend /= np.linalg.norm(blend)
    above = {index[h.id] for h in hits[:at - 1] if h.id in index}
    keep = np.array([k not in q.excluded for k in notes.kinds])
    cos = notes.vectors @ blend
    cos[~keep] = -np.inf
    for i in above:
        cos[i] = -np.inf
    pick = int(np.argmax(cos))
    if not np.isfinite(cos[pick]):
        return hits
    z = notes.ids[pick]
    where = next((i for i, h in enumerate(hits) if h.id == z), None)
    if where is not None and where < at:
        return hits
    was = hits[where] if where is not None else Hit(z, 0.0, float(notes.vectors[pick] @ q.vector),
                                                    False)
    rest = [h for h in hits if h.id != z]
    return [*rest[:at - 1], replace(was), *rest[at - 1:]]


def grid() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"step": "today"}]
    for start, head, window, lam, base in itertools.product(
            [1, 3], [3, 5, 10], [10, 20, 40],
            [0.1, 0.2, 0.3, 0.4, 0.5, 0.8],
            ["score", "cos", "mix 0.25", "mix 0.5", "mix 0.75"]):
        if window >= head > start:
            out.append({"step": "mmr", "start": start, "head": head, "window": window,
                        "lam": lam, "base": base})
    for at, m, alpha in itertools.product([2, 3, 4, 5, 10], [1, 2, 3], [0.3, 0.5, 0.7]):
        out.append({"step": "prf", "at": at, "m": m, "alpha": alpha})
    for many, one in itertools.product(
            itertools.product([0.2, 0.3, 0.4, 0.5], [0.5, 0.75, 1.0]),
            itertools.product([0.1, 0.2, 0.3], [0.0, 0.25, 0.5])):
        out.append({"step": "split", "many": list(many), "one": list(one)})
    return out


_TODAY: dict[int, list[Hit]] = {}


def ranked(q: Question, notes: Notes, linked: set[tuple[str, str]],
           s: dict[str, Any]) -> list[str]:
    if id(q) not in _TODAY:
        _TODAY[id(q)] = today(q, notes, linked)
    hits = _TODAY[id(q)]
    if s["step"] == "mmr":
        hits = mmr(hits, notes, s["head"], s["window"], s["lam"], s["base"], s["start"])
    elif s["step"] == "split":
        lam, mix = s["many"] if asks_for_many(q.text) else s["one"]
        hits = mmr(hits, notes, 10, 20, lam, f"mix {mix}", 3)
    elif s["step"] == "prf":
        hits = prf(hits, q, notes, s["at"], s["m"], s["alpha"])
    return [h.id for h in hits]


def _key(s: dict[str, Any]) -> str:
    return " ".join(f"{k} {v}" for k, v in s.items())


def summary(rows: list[tuple[str, dict[str, float]]], asked: list[Question]) -> dict[str, Any]:
    """by_kind's figures, LoCoMo's recall@10 per category (`chat_by_category`; its multi-hop
    questions' recall@10 and all@3 also as `chat_multi_hop`) and the objective."""
    out = by_kind(rows)
    chat: dict[str, list[dict[str, float]]] = {}
    for (_, r), q in zip(rows, asked, strict=True):
        if q.suite == CHAT:
            chat.setdefault(q.kind, []).append(r)
    out["chat_by_category"] = {k: {"recall@10": round(float(np.mean(
        [r["recall@10"] for r in v])), 3), "n": len(v)} for k, v in sorted(chat.items())}
    if MULTI_HOP in chat:
        hop = chat[MULTI_HOP]
        out["chat_multi_hop"] = {m: round(float(np.mean([r[m] for r in hop])), 3)
                                 for m in ("recall@10", "all@3")} | {"n": len(hop)}
    out["objective"] = objective(rows)
    return out


def _left_out(rows: dict[str, list[tuple[str, dict[str, float]]]],
              settings: list[dict[str, Any]], original: list[Question],
              name: str) -> tuple[dict[str, Any], list[tuple[str, dict[str, float]]],
                                  list[Question]]:
    """The setting best without project `name`'s questions, and their rows under it."""
    inside = [q.project != name for q in original]
    best = max(settings, key=lambda s: objective(
        [r for r, keep in zip(rows[_key(s)], inside, strict=True) if keep]))
    held = [r for r, keep in zip(rows[_key(best)], inside, strict=True) if not keep]
    return best, held, [q for q, keep in zip(original, inside, strict=True) if not keep]


def choose(notes: dict[str, Notes], asked: list[Question]) -> dict[str, Any]:
    original = [q for q in asked if q.wording == "original"]
    linked = {name: leads(n) for name, n in notes.items()}
    settings = grid()
    rows = {_key(s): [row(q, ranked(q, notes[q.project], linked[q.project], s))
                      for q in original] for s in settings}
    folds, left_out = [], []
    for name in sorted({q.project for q in original if q.suite == "coding"}):
        best, held, _ = _left_out(rows, settings, original, name)
        folds.append({"project": name, "setting": best, "left_out": by_kind(held)["overall"]})
        left_out += held
    chosen = Counter(_key(f["setting"]) for f in folds)
    chat_folds, chat_out, chat_asked = [], [], []
    for name in sorted({q.project for q in original if q.suite == CHAT}):
        best, held, held_asked = _left_out(rows, settings, original, name)
        chat_folds.append({"conversation": name, "setting": best,
                           "left_out": by_kind(held)["chat"]})
        chat_out += held
        chat_asked += held_asked
    statement = [row(q, q.today) for q in original]
    reworded = sorted({q.wording for q in asked} - {"original"})
    result: dict[str, Any] = {
        "folds": folds, "chosen": [{"setting": s, "folds": chosen[_key(s)]}
                                   for s in settings if chosen[_key(s)]],
        "left_out": by_kind(left_out), "chat_folds": chat_folds,
        "chat_left_out": summary(chat_out, chat_asked),
        "statement_today": summary(statement, original),
        "settings": [{"setting": s, **summary(rows[_key(s)], original)} for s in settings]}
    if reworded:
        multi = [q for q in asked if q.kind == "multi_note" and q.wording != "original"]
        result["rewordings"] = [
            {"setting": s, **by_kind([row(q, ranked(q, notes[q.project], linked[q.project], s))
                                      for q in multi])["multi_note"]} for s in settings]
    return result


def statement(brain: Brain, manifest: Path, asked: list[Question]) -> dict[str, Any]:
    """Every original question of the dump asked of the statement as the code stands (its best
    ten, as the benchmarks ask), scored as the replay, with its database time."""
    written = json.loads(manifest.read_text(encoding="utf-8"))
    timed = TimedDatabase(brain.db)
    search = Search(replace(brain.deps, db=timed))  # type: ignore[arg-type]
    original = [q for q in asked if q.wording == "original"]
    rows, db_s = [], 0.0
    for q in original:
        project = written[q.project]["project"] if q.suite == "coding" else q.project
        got = search.deep_search(q.text, project, top_k=DEPTH, stamp=False,
                                 include_contextual=q.excluded == _excluded(True))
        db_s += timed.last_s
        rows.append(row(q, [h.zk_id for h in got]))
    return {"statement": summary(rows, original), "db_s": round(db_s, 3)}


def main(argv: list[str] | None = None) -> int:
    p = tuning_questions("python -m bench.deep_diverse", __doc__)
    p.add_argument("--dump", type=Path, required=True, help="bench.deep_replay's --dump")
    p.add_argument("--statement", action="store_true",
                   help="ask the statement as the code stands instead of replaying")
    p.add_argument("--off", action="store_true",
                   help="with --statement: the unlike hits off (DIVERSE_HEAD 0), as before them")
    p.add_argument("--out", type=Path, required=True, help="write the result JSON here")
    args = p.parse_args(argv)
    settings = load_settings()
    notes, asked = cached(args.dump, lambda brain: dump(
        brain, args.manifest, args.locomo, args.data, args.rewordings), settings)
    if not args.statement:
        emit_result(choose(notes, asked), args.out, settings)
        return 0
    brain = Brain(settings)
    try:
        with mock.patch.object(search_module, "DIVERSE_HEAD", 0 if args.off else DIVERSE_HEAD):
            emit_result(statement(brain, args.manifest, asked), args.out, settings)
    finally:
        brain.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
