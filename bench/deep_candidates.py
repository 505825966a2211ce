"""`python -m bench.deep_candidates MANIFEST --locomo MANIFEST --data FILE --out FILE`: where
deep_search loses the needed notes of a question asking for several (the coding tuning split's
multi-note questions, their rewordings with `--rewordings`, LoCoMo's multi-hop ones).

Each question is asked of the statement (cypher/search/deep_search.cypher) with today's
constants for its best DUMP_K. For each needed note it gives its place there and, over the
project's live notes, its place in each channel: the query's cosine, the best of its clauses'
(question.clauses), the lexical score (bench/ranking.py's mirror of the statement's), the
rare entities (at most `ent_cap` notes) it shares with the other needed notes, the typed links
and the session order (FOLLOWS) joining it to them, its cosine to them and its place among the
neighbours (typed links, FOLLOWS, rare shared entities) of the statement's best NEIGHBOURS_OF
scored by the query's cosine, and what joins it to a needed note the statement put in its best
3 (a rare entity, a typed link, the session order). `summary` counts the questions answered
with nothing and, for the needed notes missing from the best 3, 10 and 40, how many each
channel holds among its best 5 and 10, how many are joined so to a needed note found in the
best 3, and how many belong to a question with none there.
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Any

import numpy as np

from bench import store
from bench.coding_data import rewordings_of, shipped_projects
from bench.common import emit_result
from bench.datasets import load_locomo, split_corpora
from bench.deep_replay import tuning_questions
from bench.ranking import Notes, ask, lexical, read_notes
from kg_brain.base.settings import load_settings
from kg_brain.domain.question import clauses
from kg_brain.domain.ranking import DeepTuning
from kg_brain.domain.search import Search, _excluded
from kg_brain.root.app import Brain

log = logging.getLogger(__name__)
DUMP_K = 40
NEIGHBOURS_OF = 5
MULTI_HOP = "1"  # LoCoMo's category of multi-hop questions
LINK_LIMIT = 50


def _place(score: np.ndarray, keep: np.ndarray, i: int) -> int:
    """1-based place of note `i` by `score` among the kept notes (ties to the lower)."""
    return int(((score > score[i]) & keep).sum()) + 1


def _cap(t: DeepTuning, notes: Notes) -> int:
    """The most notes an entity may have to lead anywhere, as deep_search sizes it."""
    return min(t.ent_ceiling, max(t.ent_floor, int(len(notes.ids) * t.ent_share)))


def _typed(brain: Brain, project: str, notes: Notes) -> set[tuple[int, int]]:
    """The project's typed links as index pairs both ways."""
    at = {z: i for i, z in enumerate(notes.ids)}
    rows = store.note_neighbours(brain.db, zk_ids=notes.ids, vector=[0.0] * 383 + [1.0],
                                 project=project, excluded=[], limit=LINK_LIMIT)
    return {(at[r["via"]], at[r["zk_id"]]) for r in rows if r["zk_id"] in at}


def _question(search: Search, brain: Brain, notes: Notes, typed: set[tuple[int, int]],
              project: str, text: str, kind: str, contextual: bool,
              expected: set[str], ent_cap: int) -> dict[str, Any]:
    at = {z: i for i, z in enumerate(notes.ids)}
    hits = search.deep_search(text, project, top_k=DUMP_K, include_contextual=contextual,
                              stamp=False)
    ranked = [h.zk_id for h in hits]
    keep = ~np.isin(notes.kinds, _excluded(contextual))
    asked = ask(brain.db, search.embedder, notes, project, text, kind, contextual, set(), [])
    lex, _ = lexical(asked, search._boosts())
    parts = clauses(text)
    ccos = np.zeros((len(notes.ids), 0))
    if parts:
        cvec = np.asarray(search.embedder.encode_many(parts), dtype=np.float64)
        ccos = notes.vectors @ (cvec / np.linalg.norm(cvec, axis=1, keepdims=True)).T
    follows = {(int(a), int(b)) for a, b in notes.follows}
    follows |= {(b, a) for a, b in follows}
    fixes = {(int(a), int(b)) for a, b in np.concatenate([notes.fixes, notes.supersedes])}
    typed = typed | fixes | {(b, a) for a, b in fixes}

    def rare(i: int) -> set[str]:
        return {e for e, c in notes.entities[i].items() if 2 <= c <= ent_cap}

    seeds = [at[z] for z in ranked[:NEIGHBOURS_OF] if z in at]
    around = {m for s in seeds for (a, m) in typed | follows if a == s}
    around |= {m for s in seeds for m in range(len(notes.ids))
               if m != s and rare(s) & rare(m)}
    around -= set(seeds)
    need = [at[z] for z in expected if z in at]
    found = [at[z] for z in ranked[:3] if z in expected and z in at]
    out: list[dict[str, Any]] = []
    for i in need:
        others = [j for j in need if j != i]
        top = [j for j in found if j != i]
        near = np.asarray([m in around for m in range(len(notes.ids))]) & keep
        out.append({
            "id": notes.ids[i], "kind": str(notes.kinds[i]),
            "deep": ranked.index(notes.ids[i]) + 1 if notes.ids[i] in ranked else None,
            "found_by": sorted({f.channel for h in hits if h.zk_id == notes.ids[i]
                                for f in h.found_by}),
            "cosine": round(float(asked.cosine[i]), 3),
            "vector": _place(asked.cosine, keep, i),
            "clause": min((_place(ccos[:, c], keep, i) for c in range(len(parts))),
                          default=None),
            "lexical": _place(lex, keep, i) if lex[i] > 0 else None,
            "shared_entities": sorted({e for j in others for e in rare(i) & rare(j)}),
            "typed_to_other": any((i, j) in typed for j in others),
            "follows_other": any((i, j) in follows for j in others),
            "shared_with_found": sorted({e for j in top for e in rare(i) & rare(j)}),
            "typed_to_found": any((i, j) in typed for j in top),
            "follows_found": any((i, j) in follows for j in top),
            "none_found": not found,
            "cos_to_other": round(max((float(notes.vectors[i] @ notes.vectors[j])
                                       for j in others), default=0.0), 3),
            "by_other": min((_place(notes.vectors @ notes.vectors[j], keep & (
                np.arange(len(notes.ids)) != j), i) for j in others), default=None),
            "around_top": _place(asked.cosine, near, i) if near[i] else None,
        })
    return {"project": project, "kind": kind, "text": text, "clauses": parts,
            "top": ranked[:10], "needed": out,
            "all@3": all(n["deep"] is not None and n["deep"] <= 3 for n in out)}


def _summary(asked: list[dict[str, Any]]) -> dict[str, Any]:
    """The questions answered with nothing (the relevance floor), and for the needed notes
    missing from the statement's best 3, 10 and 40: how many each channel holds in its best 5
    and 10."""
    out: dict[str, Any] = {"questions": len(asked),
                           "all@3": round(100.0 * sum(q["all@3"] for q in asked)
                                          / max(1, len(asked)), 1),
                           "answered_nothing": sum(not q["top"] for q in asked)}
    notes = [n for q in asked for n in q["needed"]]
    for cut in (3, 10, 40):
        lost = [n for n in notes if n["deep"] is None or n["deep"] > cut]
        row: dict[str, Any] = {"needed": len(lost)}
        for channel in ("vector", "clause", "lexical", "by_other", "around_top"):
            for at in (5, 10):
                row[f"{channel}@{at}"] = sum(n[channel] is not None and n[channel] <= at
                                             for n in lost)
        row["typed_to_other"] = sum(n["typed_to_other"] for n in lost)
        row["follows_other"] = sum(n["follows_other"] for n in lost)
        row["shares_entity"] = sum(bool(n["shared_entities"]) for n in lost)
        row["shares_entity_found"] = sum(bool(n["shared_with_found"]) for n in lost)
        row["typed_to_found"] = sum(n["typed_to_found"] for n in lost)
        row["follows_found"] = sum(n["follows_found"] for n in lost)
        row["none_found"] = sum(n["none_found"] for n in lost)
        out[f"missing_from_{cut}"] = row
    return out


def main(argv: list[str] | None = None) -> int:
    p = tuning_questions("python -m bench.deep_candidates", __doc__)
    p.add_argument("--out", type=Path, required=True, help="write the result JSON here")
    args = p.parse_args(argv)
    settings = load_settings()
    brain = Brain(settings)
    search = Search(brain.deps)
    t = search.deep_tuning
    other = rewordings_of(args.rewordings) if args.rewordings else {}
    asked: dict[str, list[dict[str, Any]]] = {}
    try:
        written = json.loads(args.manifest.read_text(encoding="utf-8"))
        for project in shipped_projects(sorted(written), "tune"):
            stored, ids = written[project.name]["project"], written[project.name]["ids"]
            notes = read_notes(brain.db, stored)
            typed = _typed(brain, stored, notes)
            for q in project.questions:
                if q.type != "multi_note":
                    continue
                wordings = [q.text, *other.get((project.name, q.text), [])]
                for n, text in enumerate(wordings):
                    asked.setdefault("original" if n == 0 else f"reworded {n}", []).append(
                        _question(search, brain, notes, typed, stored, text, q.type,
                                  q.contextual, {ids[k] for k in q.expected}, _cap(t, notes)))
            log.info("%s done", project.name)
        if args.locomo and args.data:
            entries = [e for e in json.loads(args.locomo.read_text(encoding="utf-8"))
                       if e["write_path"] == "add"]
            for corpus, e in zip(split_corpora(load_locomo(args.data), "tune", False), entries,
                                 strict=True):
                notes = read_notes(brain.db, e["project"])
                typed = _typed(brain, e["project"], notes)
                ids = {(s, u): z for s, u, z in e["ids"]}
                for cq in corpus.questions:
                    evidence = {ids[k] for k in cq.evidence if k in ids}
                    if cq.category == MULTI_HOP and len(evidence) >= 2:
                        asked.setdefault("locomo multi-hop", []).append(_question(
                            search, brain, notes, typed, e["project"], cq.text, "multi_hop",
                            False, evidence, _cap(t, notes)))
                log.info("%s done", e["project"])
    finally:
        brain.close()
    emit_result({"summary": {k: _summary(v) for k, v in asked.items()}, "questions": asked},
                args.out, settings)
    return 0


if __name__ == "__main__":
    sys.exit(main())
