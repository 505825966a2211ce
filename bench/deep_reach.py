"""`python -m bench.deep_reach MANIFEST --locomo MANIFEST --data FILE --rewordings FILE --out FILE`:
choose NEAR_REACH (kg_brain/domain/ranking.py: the candidates closest to the query that join
deep_search's close hits first step) by leave-one-project-out on the coding tuning split,
through the statement itself: every coding tuning question (and the multi-note questions'
rewordings) and every LoCoMo tuning question is asked of deep_search under each of REACH, and
scored as bench/deep_replay.py scores its replay (bench/fit_ranking.py's `objective`: the
coding kinds and LoCoMo's recall@10 weighing alike). For each coding project, the setting best
on the others (and LoCoMo) is scored on it. The result holds each fold's choice, the figures
left out, every setting's figures by kind (with LoCoMo's recall@10 and its multi-hop
questions') and the rewordings' multi-note all@3.
"""

from __future__ import annotations

import json
import logging
import sys
from collections import Counter
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np

import kg_brain.domain.search as search_module
from bench import coding
from bench.coding import must_yield
from bench.coding_data import rewordings_of, shipped_projects
from bench.common import emit_result
from bench.datasets import load_locomo, split_corpora
from bench.deep_candidates import MULTI_HOP
from bench.deep_replay import Question, row, tuning_questions
from bench.fit_ranking import objective
from bench.ranking import CHAT, by_kind
from bench.retrieval import DEPTH
from kg_brain.base.settings import load_settings
from kg_brain.domain.search import Search
from kg_brain.root.app import Brain

log = logging.getLogger(__name__)
REACH = [0, 1, 3]


def questions(args: Any) -> list[dict[str, Any]]:
    """Every question: its suite, project, kind, wording (0: the original), text and what it
    expects."""
    other = rewordings_of(args.rewordings) if args.rewordings else {}
    written = json.loads(args.manifest.read_text(encoding="utf-8"))
    out: list[dict[str, Any]] = []
    for project in shipped_projects(sorted(written), "tune"):
        stored, ids = written[project.name]["project"], written[project.name]["ids"]
        steps = {k: s for s in project.notes for k in s.stored_keys()}
        for q in project.questions:
            pairs = [(ids[b], ids[w]) for b, w in must_yield(q, steps)]
            for n, text in enumerate([q.text, *other.get((project.name, q.text), [])]):
                out.append({"suite": "coding", "project": project.name, "stored": stored,
                            "kind": q.type, "wording": n, "text": text,
                            "contextual": q.contextual, "depth": coding.DEPTH,
                            "expected": {ids[k] for k in q.expected}, "pairs": pairs})
    entries = [e for e in json.loads(args.locomo.read_text(encoding="utf-8"))
               if e["write_path"] == "add"]
    for corpus, e in zip(split_corpora(load_locomo(args.data), "tune", False), entries,
                         strict=True):
        ids = {(s, t): z for s, t, z in e["ids"]}
        for cq in corpus.questions:
            evidence = {ids[k] for k in cq.evidence if k in ids}
            if evidence:
                out.append({"suite": CHAT, "project": e["project"], "stored": e["project"],
                            "kind": str(cq.category), "wording": 0, "text": cq.text,
                            "contextual": False, "depth": DEPTH, "expected": evidence,
                            "pairs": []})
    return out


def _question(q: dict[str, Any]) -> Question:
    """What deep_replay's `row` reads of a question."""
    return Question(q["suite"], q["project"], q["kind"], str(q["wording"]), q["text"],
                    q["expected"], q["pairs"], [], [], np.zeros((0, 0)), np.zeros(0), [], 0)


def figures(rows: list[tuple[dict[str, Any], tuple[str, dict[str, float]]]]) -> dict[str, Any]:
    """By kind over the original wordings, LoCoMo's recall@10 (all, multi-hop) and the
    rewordings' multi-note all@3."""
    original = [r for q, r in rows if q["wording"] == 0]
    chat = [(q, r) for q, r in rows if q["suite"] == CHAT]
    return {"objective": objective(original), **by_kind([r for r in original if r[0] != CHAT]),
            "chat": {"recall@10": float(np.mean([r[1]["recall@10"] for _, r in chat])),
                     "multi_hop": float(np.mean([r[1]["recall@10"] for q, r in chat
                                                 if q["kind"] == MULTI_HOP]))},
            "reworded": {str(n): by_kind([r for q, r in rows if q["wording"] == n
                                          and q["kind"] == "multi_note"])["multi_note"]
                         for n in sorted({q["wording"] for q, _ in rows} - {0})}}


def main(argv: list[str] | None = None) -> int:
    p = tuning_questions("python -m bench.deep_reach", __doc__)
    p.add_argument("--out", type=Path, required=True, help="write the result JSON here")
    args = p.parse_args(argv)
    settings = load_settings()
    brain = Brain(settings)
    search = Search(brain.deps)
    asked = questions(args)
    rows: dict[int, list[tuple[dict[str, Any], tuple[str, dict[str, float]]]]] = {}
    try:
        for reach in REACH:
            with mock.patch.object(search_module, "NEAR_REACH", reach):
                rows[reach] = [(q, row(_question(q), [h.zk_id for h in search.deep_search(
                    q["text"], q["stored"], top_k=q["depth"],
                    include_contextual=q["contextual"], stamp=False)])) for q in asked]
            log.info("NEAR_REACH %d asked", reach)
    finally:
        brain.close()
    original = {reach: [(q, r) for q, r in got if q["wording"] == 0]
                for reach, got in rows.items()}
    folds, left_out = [], []
    for name in sorted({q["project"] for q in asked if q["suite"] == "coding"}):
        best = max(REACH, key=lambda reach: objective(
            [r for q, r in original[reach] if q["project"] != name]))
        held = [r for q, r in original[best] if q["project"] == name]
        folds.append({"project": name, "reach": best, "left_out": by_kind(held)["overall"]})
        left_out += held
    chosen = Counter(f["reach"] for f in folds)
    emit_result({"folds": folds,
                 "chosen": [{"reach": r, "folds": chosen[r]} for r in REACH if chosen[r]],
                 "left_out": by_kind(left_out),
                 "settings": [{"reach": r, **figures(rows[r])} for r in REACH]},
                args.out, settings)
    return 0


if __name__ == "__main__":
    sys.exit(main())
