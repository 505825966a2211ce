"""`python -m bench.deep_replay MANIFEST --locomo MANIFEST --data FILE --dump FILE --out FILE`:
choose deep_search's last three steps, the close hits first (NEAR_GAP, NEAR_OF), the clauses
(CLAUSE_OF) and the first hit's bridge (BRIDGE_AT, BRIDGE_RARITY, BRIDGE_LEAST;
kg_brain/domain/ranking.py), by leave-one-project-out on the coding tuning split, replaying them
in numpy.

MANIFEST lists the coding tuning projects as written by
`kg-brain bench retrieval --suite coding --split tune --reuse MANIFEST`; `--locomo` the LoCoMo
tuning conversations written through add_memory the same way. Each question is asked of the
statement twice: with the three steps off (NEAR_OF, NEAR_REACH and BRIDGE_AT 0, no clauses),
keeping its best DUMP_K hits (id, score, cosine, channels), and with today's constants at the
benchmarks' depth. The replay leaves NEAR_REACH out (the candidate closest to the query can rank
past the best DUMP_K: bench/deep_candidates.py follows it; docs/BENCHMARKS.md). Both, the
clause vectors, the query's vector, the project's note count and the projects' notes
(bench/ranking.py) are kept in `--dump` (read if present, else written). Then `near`,
`by_clause` and `bridge` (below) replay the three steps as cypher/search/deep_search.cypher
does them for each setting of GRID (the bridge at today's constants), and each setting is scored
as bench/fit_ranking.py scores search_memory's mirror (`objective`: the coding kinds and LoCoMo's
recall@10 weighing alike). For each coding project, the setting best on the others (and LoCoMo)
is scored on it; the result holds each fold's setting (and how many folds chose each), the
figures left out, every setting's in-sample figures (`settings`, in the order of
settings_grid), the statement's own with today's constants and on how many questions the replay
of today's constants ranks the best ten as the statement does; `bridge` the same for each
setting of BRIDGE_GRID with the other two steps at today's constants (in the order of
bridge_grid).

`--rewordings FILE` (bench/data/coding/tune-rewordings.json) adds other wordings of the coding
tuning multi-note questions: their all@3 under each setting and through the statement, beside
the original wording's.
"""

from __future__ import annotations

import argparse
import itertools
import json
import logging
import sys
from collections import Counter
from dataclasses import dataclass, replace
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
from bench.fit_ranking import Rows, cached, objective
from bench.ranking import CHAT, Notes, by_kind, read_notes
from bench.retrieval import DEPTH
from kg_brain.base.settings import load_settings
from kg_brain.domain.question import clauses
from kg_brain.domain.ranking import (
    BRIDGE_AT,
    BRIDGE_LEAST,
    BRIDGE_RARITY,
    CLAUSE_OF,
    NEAR_GAP,
    NEAR_HEAD,
    NEAR_OF,
    DeepTuning,
)
from kg_brain.domain.search import Search, _excluded
from kg_brain.root.app import Brain
from kg_brain.store.notes import project_share

log = logging.getLogger(__name__)
# the statement's best hits replayed: up to 50 it fetches the candidates it fetches for the
# benchmarks' ten (Search._fetches), a deeper answer more, and ranks otherwise
DUMP_K = 40
OFF = 0  # NEAR_OF or CLAUSE_OF: the step is off
GRID: dict[str, list[float]] = {
    "gap": [0.1, 0.2, 0.3, 9.0],  # 9: every hit among the best `of` is close
    "of": [OFF, 5, 10],
    "clause_of": [OFF, 5, 10, 15, 20, 40],
}
# the first hit's bridge, chosen with the other two steps at today's constants
BRIDGE_GRID: dict[str, list[float]] = {
    "bridge_at": [OFF, 3, 4],
    "bridge_rarity": [0.0, 1.0, 2.0, 3.0, 4.0],
    "bridge_least": [0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 2.0, 3.0],
}
BRIDGE = {"bridge_at": BRIDGE_AT, "bridge_rarity": BRIDGE_RARITY, "bridge_least": BRIDGE_LEAST}
TODAY = {"gap": NEAR_GAP, "of": NEAR_OF, "clause_of": CLAUSE_OF} | BRIDGE


@dataclass
class Hit:
    id: str
    score: float
    relevance: float  # cosine to the query, in [-1, 1]
    exact: bool  # found by the exact channel (a rare identifier of the query)


@dataclass
class Question:
    suite: str  # "coding" or CHAT
    project: str  # the coding project's name, or the conversation's project
    kind: str
    wording: str  # "original", or the rewording's place ("reworded 1", ...)
    text: str
    expected: set[str]
    pairs: list[tuple[str, str]]  # (better, worse): must_yield
    hits: list[Hit]  # the statement's best DUMP_K with the three steps off
    today: list[str]  # the statement's best with today's constants
    clauses: np.ndarray  # a unit vector per clause, (0, d) for a question of one
    vector: np.ndarray  # the query's unit vector
    excluded: list[str]  # the note kinds the search leaves out
    total: int  # the project's notes as the statement counts them


# --- the replay (cypher/search/deep_search.cypher, the last three steps) ---

def _placed(hits: list[Hit], score: list[float]) -> list[Hit]:
    order = sorted(range(len(hits)), key=lambda i: (-score[i], hits[i].id))
    return [replace(hits[i], score=score[i]) for i in order]


def near(hits: list[Hit], leads: set[tuple[str, str]], gap: float, of: int,
         head: int = NEAR_HEAD) -> list[Hit]:
    """The close hits first: the best `head` places go to the first hits among the best `of`
    whose cosine is at most `gap` below the closest of those, or found by the exact channel, or
    that fix or supersede the closest (`leads`: (fix or successor, note) ids); a hit passed
    over scores just below the last of them, by its closeness to the query."""
    top = hits[:of]
    if not top:
        return hits
    closest = max(h.relevance for h in top)
    nearest = {h.id for h in top if h.relevance == closest}
    lead = [i for i, h in enumerate(top)
            if h.relevance >= closest - gap or h.exact
            or any((h.id, m) in leads for m in nearest)][:head]
    if not lead:
        return hits
    last = hits[lead[-1]].score
    score = [0.99 * last * (1.0 - 0.001 * (1.0 - h.relevance))
             if i < lead[-1] and i not in lead and h.score > 0.99 * last else h.score
             for i, h in enumerate(hits)]
    return _placed(hits, score)


def by_clause(hits: list[Hit], vectors: np.ndarray, clause_vectors: np.ndarray, of: int,
              head: int = NEAR_HEAD) -> list[Hit]:
    """After the first place, the hit closest to each clause among the best `of` (`vectors`:
    the hits' unit vectors, in their order) takes one of the best `head` places, clause by
    clause; the others follow in their order, just below the last of them."""
    lead = [0]
    for c in clause_vectors:
        if len(lead) >= head or not of:
            break
        pick = int(np.argmax(vectors[:of] @ c))  # the first of equals, as the statement's reduce
        if pick not in lead:
            lead.append(pick)
    lead.sort()
    if lead == list(range(len(lead))):
        return hits
    last = hits[lead[-1]].score
    score = [h.score if i in lead
             else min(h.score, 0.99 * last * (1.0 - 0.001 * (i + 1) / len(hits)))
             for i, h in enumerate(hits)]
    return _placed(hits, score)


def _mentions(notes: Notes) -> dict[str, list[int]]:
    """Each entity's notes (indices), kept per Notes."""
    key = id(notes)
    if key not in _MENTIONS:
        got: dict[str, list[int]] = {}
        for i, entities in enumerate(notes.entities):
            for e in entities:
                got.setdefault(e, []).append(i)
        _MENTIONS[key] = (notes, got)
    return _MENTIONS[key][1]


_MENTIONS: dict[int, tuple[Notes, dict[str, list[int]]]] = {}


def bridge(hits: list[Hit], q: Question, notes: Notes, at: int, rarity: float,
           least: float) -> list[Hit]:
    """The first hit's bridge: of the notes sharing with the first hit entities at least 2
    and at most the entity cap of notes mention, the one whose shared entities weigh most
    (each its rarity among the project's `q.total` notes to the power `rarity`), at least
    `least`, takes place `at` when it ranks below it (ties to the closer to the query); the
    hits it passes over score just below it."""
    if at < 2 or not hits:
        return hits
    index = {z: i for i, z in enumerate(notes.ids)}
    if hits[0].id not in index:
        return hits
    t = DeepTuning()
    cap = min(t.ent_ceiling, max(t.ent_floor, int(q.total * t.ent_share)))
    first = index[hits[0].id]
    above = {index[h.id] for h in hits[:at - 1] if h.id in index}
    mentions = _mentions(notes)
    weight: dict[int, float] = {}
    for e, count in notes.entities[first].items():
        if not 2 <= count <= cap:
            continue
        w = (np.log((q.total + 1.0) / (count + 0.5)) / np.log(q.total + 2.0)) ** rarity
        for m in mentions[e]:
            if m not in above and notes.kinds[m] not in q.excluded:
                weight[m] = weight.get(m, 0.0) + float(w)
    kept = [m for m, w in weight.items() if w >= least]
    if not kept:
        return hits
    cosine = {m: float(notes.vectors[m] @ q.vector) for m in kept}
    pick = notes.ids[min(kept, key=lambda m: (-weight[m], -cosine[m], notes.ids[m]))]
    was = next((h for h in hits if h.id == pick), Hit(pick, 0.0, cosine[index[pick]], False))
    rest = [h for h in hits if h.id != pick]
    s = 0.999 * rest[min(at - 1, len(rest)) - 1].score
    ranked = [*rest[:at - 1], replace(was, score=s), *rest[at - 1:]]
    return [h if i < at else replace(h, score=min(h.score, 0.99 * s * (
        1.0 - 0.001 * i / len(ranked)))) for i, h in enumerate(ranked)]


def leads(notes: Notes) -> set[tuple[str, str]]:
    """(fix or successor, note) ids of the project's FIXES and SUPERSEDES links."""
    return {(notes.ids[a], notes.ids[b])
            for a, b in itertools.chain(notes.fixes, notes.supersedes)}


def replay(q: Question, notes: Notes, linked: set[tuple[str, str]],
           setting: dict[str, float]) -> list[str]:
    """The question's ranking under `setting` (gap, of, clause_of, bridge_at, bridge_rarity,
    bridge_least); `linked`: leads(notes)."""
    hits = q.hits
    if hits and setting["of"]:
        hits = near(hits, linked, setting["gap"], int(setting["of"]))
    if hits and len(q.clauses) and setting["clause_of"]:
        at = {z: i for i, z in enumerate(notes.ids)}
        vectors = notes.vectors[[at[h.id] for h in hits]]
        hits = by_clause(hits, vectors, q.clauses, int(setting["clause_of"]))
    hits = bridge(hits, q, notes, int(setting["bridge_at"]), setting["bridge_rarity"],
                  setting["bridge_least"])
    return [h.id for h in hits]


def row(q: Question, ranked: list[str]) -> tuple[str, dict[str, float]]:
    """(kind, metrics) as bench/ranking.py's `score` gives the mirror's."""
    first = next((i for i, z in enumerate(ranked) if z in q.expected), None)
    wrong = any(w in ranked and (b not in ranked or ranked.index(w) < ranked.index(b))
                for b, w in q.pairs)
    return (CHAT if q.suite == CHAT else q.kind,
            {"hit@1": 100.0 * (first == 0), "mrr": 0.0 if first is None else 1.0 / (first + 1),
             "all@3": 100.0 * q.expected.issubset(ranked[:3]),
             "recall@10": 100.0 * len(q.expected.intersection(ranked[:10])) / len(q.expected),
             "right": 100.0 * (first == 0 and not wrong)})


def settings_grid() -> list[dict[str, float]]:
    """Every setting of GRID, the near step's gap once when it is off, the bridge today's."""
    out = []
    for gap, of, clause_of in itertools.product(GRID["gap"], GRID["of"], GRID["clause_of"]):
        if of == OFF and gap != GRID["gap"][0]:
            continue
        out.append({"gap": gap, "of": of, "clause_of": clause_of} | BRIDGE)
    return out


def bridge_grid() -> list[dict[str, float]]:
    """Every setting of BRIDGE_GRID (the bridge's weights once when it is off), the other two
    steps today's."""
    out = []
    for at, rarity, least in itertools.product(*BRIDGE_GRID.values()):
        if at == OFF and (rarity, least) != (BRIDGE_GRID["bridge_rarity"][0],
                                             BRIDGE_GRID["bridge_least"][0]):
            continue
        out.append(TODAY | {"bridge_at": at, "bridge_rarity": rarity, "bridge_least": least})
    return out


def _key(setting: dict[str, float]) -> str:
    return " ".join(f"{k} {v}" for k, v in setting.items())


# --- the statement's answers ---

def _asked(search: Search, text: str, project: str, contextual: bool,
           depth: int) -> tuple[list[Hit], list[str], np.ndarray, np.ndarray]:
    """The best DUMP_K with the three steps off, the best `depth` with today's constants, the
    clause vectors and the query's vector."""
    today = [h.zk_id for h in search.deep_search(text, project, top_k=depth,
                                                include_contextual=contextual, stamp=False)]
    with mock.patch.object(search_module, "NEAR_OF", OFF), \
            mock.patch.object(search_module, "NEAR_REACH", OFF), \
            mock.patch.object(search_module, "BRIDGE_AT", OFF), \
            mock.patch.object(search_module, "clauses", lambda _: []):
        off = search.deep_search(text, project, top_k=DUMP_K, include_contextual=contextual,
                                 stamp=False)
    hits = [Hit(h.zk_id, h.score, h.relevance, any(f.channel == "exact" for f in h.found_by))
            for h in off]
    query = np.asarray(search.embedder.encode(text), dtype=np.float64)
    query /= np.linalg.norm(query)
    parts = clauses(text)
    if not parts:
        return hits, today, np.zeros((0, 0)), query
    vectors = np.asarray(search.embedder.encode_many(parts), dtype=np.float64)
    return hits, today, vectors / np.linalg.norm(vectors, axis=1, keepdims=True), query


def dump(brain: Brain, manifest: Path, locomo: Path | None, data: Path | None,
         rewordings: Path | None) -> tuple[dict[str, Notes], list[Question]]:
    """Every question's answers and the notes of its project."""
    search = Search(brain.deps)
    other = rewordings_of(rewordings) if rewordings else {}
    written = json.loads(manifest.read_text(encoding="utf-8"))
    notes: dict[str, Notes] = {}
    asked: list[Question] = []
    for project in shipped_projects(sorted(written), "tune"):
        stored, ids = written[project.name]["project"], written[project.name]["ids"]
        notes[project.name] = read_notes(brain.db, stored)
        total = int(project_share(brain.db, project=stored)["project_notes"])
        steps = {k: s for s in project.notes for k in s.stored_keys()}
        for q in project.questions:
            pairs = [(ids[b], ids[w]) for b, w in must_yield(q, steps)]
            wordings = [("original", q.text)] + [
                (f"reworded {i}", t) for i, t in
                enumerate(other.get((project.name, q.text), []), 1) if t]
            for wording, text in wordings:
                hits, today, vectors, query = _asked(search, text, stored, q.contextual,
                                                     coding.DEPTH)
                asked.append(Question("coding", project.name, q.type, wording, text,
                                      {ids[k] for k in q.expected}, pairs, hits, today, vectors,
                                      query, _excluded(q.contextual), total))
        log.info("%s: %d questions", project.name, len(project.questions))
    if locomo is None or data is None:
        return notes, asked
    entries = [e for e in json.loads(locomo.read_text(encoding="utf-8"))
               if e["write_path"] == "add"]
    for corpus, e in zip(split_corpora(load_locomo(data), "tune", False), entries, strict=True):
        notes[e["project"]] = read_notes(brain.db, e["project"])
        total = int(project_share(brain.db, project=e["project"])["project_notes"])
        ids = {(s, t): z for s, t, z in e["ids"]}
        for cq in corpus.questions:
            evidence = {ids[k] for k in cq.evidence if k in ids}
            if evidence:
                hits, today, vectors, query = _asked(search, cq.text, e["project"], False,
                                                     DEPTH)
                asked.append(Question(CHAT, e["project"], str(cq.category), "original",
                                      cq.text, evidence, [], hits, today, vectors, query,
                                      _excluded(False), total))
        log.info("%s: %d questions", e["project"], len(corpus.questions))
    return notes, asked


# --- choosing ---

def evaluate(notes: dict[str, Notes], asked: list[Question],
             setting: dict[str, float]) -> list[tuple[str, dict[str, float]]]:
    linked = {name: leads(n) for name, n in notes.items()}
    return [row(q, replay(q, notes[q.project], linked[q.project], setting)) for q in asked]


def _folds(grid: list[dict[str, float]], rows: dict[str, Rows],
           original: list[Question]) -> tuple[list[dict[str, Any]], Rows, Counter[str]]:
    """For each coding project, the setting best on the others (and LoCoMo) and its figures
    on the project; the rows left out; how many folds chose each setting."""
    coding_projects = sorted({q.project for q in original if q.suite == "coding"})
    folds, left_out = [], []
    for name in coding_projects:
        inside = [q.project != name for q in original]
        best = max(grid, key=lambda s: objective(
            [r for r, keep in zip(rows[_key(s)], inside, strict=True) if keep]))
        held = [r for r, keep in zip(rows[_key(best)], inside, strict=True) if not keep]
        folds.append({"project": name, "setting": best, "left_out": by_kind(held)["overall"]})
        left_out += held
    return folds, left_out, Counter(_key(f["setting"]) for f in folds)


def choose(notes: dict[str, Notes], asked: list[Question]) -> dict[str, Any]:
    """Leave-one-project-out over the coding projects (original wordings; LoCoMo in every fit),
    every setting's in-sample figures, today's through the statement and the replay's fidelity;
    `bridge`: the same for the first hit's bridge, the other two steps today's."""
    original = [q for q in asked if q.wording == "original"]
    grid = settings_grid()
    rows = {_key(s): evaluate(notes, original, s) for s in grid}
    folds, left_out, chosen = _folds(grid, rows, original)
    today = rows[_key(TODAY)]
    statement = [row(q, q.today) for q in original]
    same = sum(replayed[:len(q.today)] == q.today for q, replayed in zip(
        original, (replay(q, notes[q.project], leads(notes[q.project]), TODAY)
                   for q in original), strict=True))
    bridges = bridge_grid()
    bridge_rows = {_key(s): rows.get(_key(s)) or evaluate(notes, original, s) for s in bridges}
    bridge_folds, bridge_left_out, bridge_chosen = _folds(bridges, bridge_rows, original)
    result: dict[str, Any] = {
        "today": TODAY, "folds": folds,
        "chosen": [{"setting": s, "folds": chosen[_key(s)]} for s in grid if chosen[_key(s)]],
        "left_out": by_kind(left_out), "replayed_today": by_kind(today),
        "statement_today": by_kind(statement),
        "same_ranking": {"questions": len(original), "same": same},
        "settings": [{"setting": s, "objective": objective(rows[_key(s)]),
                      **by_kind(rows[_key(s)])} for s in grid],
        "bridge": {"folds": bridge_folds,
                   "chosen": [{"setting": s, "folds": bridge_chosen[_key(s)]}
                              for s in bridges if bridge_chosen[_key(s)]],
                   "left_out": by_kind(bridge_left_out),
                   "settings": [{"setting": s, "objective": objective(bridge_rows[_key(s)]),
                                 **by_kind(bridge_rows[_key(s)])} for s in bridges]}}
    reworded = sorted({q.wording for q in asked} - {"original"})
    if reworded:
        multi = [q for q in asked if q.kind == "multi_note"]
        result["rewordings"] = {
            wording: {"questions": sum(q.wording == wording for q in multi),
                      "statement_today": by_kind([row(q, q.today) for q in multi
                                                  if q.wording == wording])["multi_note"],
                      "settings": [by_kind(evaluate(
                          notes, [q for q in multi if q.wording == wording], s))["multi_note"]
                          for s in grid]}
            for wording in ["original", *reworded]}
    return result


def tuning_questions(prog: str, doc: str | None) -> argparse.ArgumentParser:
    """The options of the programs reading deep_search over the tuning questions (this one,
    bench.deep_candidates, bench.deep_reach): the coding projects, the LoCoMo conversations and
    the rewordings; logs go to stderr."""
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    p = argparse.ArgumentParser(prog=prog, description=doc)
    p.add_argument("manifest", type=Path, help="coding tuning projects written with --reuse")
    p.add_argument("--locomo", type=Path, metavar="MANIFEST",
                   help="the LoCoMo tuning conversations written through add_memory")
    p.add_argument("--data", type=Path, help="the LoCoMo-format file they were written from")
    p.add_argument("--rewordings", type=Path, help="other wordings of the multi-note questions")
    return p


def main(argv: list[str] | None = None) -> int:
    p = tuning_questions("python -m bench.deep_replay", __doc__)
    p.add_argument("--dump", type=Path, help="the statement's answers (read if present, else "
                                             "written)")
    p.add_argument("--out", type=Path, required=True, help="write the result JSON here")
    args = p.parse_args(argv)
    settings = load_settings()
    notes, asked = cached(args.dump, lambda brain: dump(
        brain, args.manifest, args.locomo, args.data, args.rewordings), settings)
    emit_result(choose(notes, asked), args.out, settings)
    return 0

if __name__ == "__main__":
    sys.exit(main())
