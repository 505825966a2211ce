"""Ranking metrics of the retrieval benchmarks, on ranked lists of note ids.

Evidence sets (LoCoMo, MuSiQue): recall@k is the share of the evidence in the top k (the LoCoMo
paper's definition), hit@10 needs all of it in the top 10, MRR is of the first evidence note.
Expected notes (the coding set): hit@1 (the top result is expected), MRR of the first expected
note, all-needed@k (every expected note in the top k), and `inverted`: a note that must not win
(an outdated fact, the mistake instead of its fix) ranks above the one it must yield to.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from typing import Any

KS = (5, 10, 25)
NEEDED_KS = (3, 5)
FLOORS = tuple(round(0.05 * i, 2) for i in range(13))  # cosines 0 .. 0.6 a floor is tried at


def score_question(ranked: list[str], evidence: set[str]) -> dict[str, float]:
    """recall@k (share of evidence in the top k), all-evidence hit@10, MRR of the first."""
    scores = {f"recall@{k}": 100.0 * len(evidence & set(ranked[:k])) / len(evidence) for k in KS}
    scores["hit@10"] = 100.0 if evidence <= set(ranked[:10]) else 0.0
    scores["mrr"] = reciprocal_rank(ranked, evidence)
    return scores


def reciprocal_rank(ranked: list[str], wanted: set[str]) -> float:
    first = next((i for i, z in enumerate(ranked) if z in wanted), None)
    return 0.0 if first is None else 1.0 / (first + 1)


def inverted(ranked: list[str], better: str, worse: str) -> bool:
    """`worse` ranks above `better` (or is returned while `better` is not)."""
    if worse not in ranked:
        return False
    return better not in ranked or ranked.index(worse) < ranked.index(better)


def score_expected(ranked: list[str], expected: set[str],
                   must_yield: Iterable[tuple[str, str]] = ()) -> dict[str, float | None]:
    """hit@1, MRR, all-needed@3/@5 and (when the question has such pairs) `inverted`: 100 when
    any (better, worse) pair is ranked the wrong way round."""
    scores: dict[str, float | None] = {
        "hit@1": 100.0 if ranked[:1] and ranked[0] in expected else 0.0,
        "mrr": reciprocal_rank(ranked, expected),
    }
    for k in NEEDED_KS:
        scores[f"all@{k}"] = 100.0 if expected <= set(ranked[:k]) else 0.0
    pairs = list(must_yield)
    scores["inverted"] = (100.0 if any(inverted(ranked, b, w) for b, w in pairs) else 0.0) \
        if pairs else None
    return scores


def mean_scores(items: list[dict[str, float | None]]) -> dict[str, Any]:
    """Means per metric over the questions that have it (None: not applicable), and the count."""
    out: dict[str, Any] = {}
    for key in dict.fromkeys(k for i in items for k in i):
        values = [v for i in items if (v := i.get(key)) is not None]
        if values:
            out[key] = round(statistics.fmean(values), 4 if key == "mrr" else 2)
    return out | {"questions": len(items)}


def summarise(rows: list[tuple[str, dict[str, float | None]]],
              group: str = "by_category") -> dict[str, Any]:
    """Overall means and means per group (LoCoMo category, question type)."""
    names = sorted({c for c, _ in rows})
    return {"overall": mean_scores([s for _, s in rows]),
            group: {c: mean_scores([s for cc, s in rows if cc == c]) for c in names}}


def latency(samples: list[float]) -> dict[str, float]:
    if not samples:
        return {}
    ordered = sorted(samples)
    return {"p50": round(statistics.median(ordered), 2),
            "p95": round(ordered[int(0.95 * (len(ordered) - 1))], 2),
            "mean": round(statistics.fmean(ordered), 2)}


def floor_sweep(normal: list[tuple[float | None, float]], absent: list[float | None],
                floors: Iterable[float] = FLOORS) -> list[dict[str, float]]:
    """What a relevance floor would do, from answers given without one: per floor, the share of
    questions about nothing stored that are answered with nothing (best relevance under the
    floor, or no hit) and hit@1 of the normal questions (`normal`: best relevance, hit@1), a
    question whose best hit is under the floor scoring 0."""
    def under(rel: float | None, floor: float) -> bool:
        return rel is None or rel < floor

    return [{"floor": f,
             "absent_nothing": round(100.0 * sum(under(r, f) for r in absent)
                                     / max(len(absent), 1), 2),
             "hit@1": round(statistics.fmean([0.0 if under(r, f) else h for r, h in normal]),
                            2) if normal else 0.0}
            for f in floors]
