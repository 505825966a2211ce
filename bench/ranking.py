"""search_memory's ranking mirrored in numpy, over signals read once from stored notes.

`signals` reads a written coding project (bench retrieval --keep/--reuse) once: every live
note's embedding and sentence vectors, kind, creation time, FOLLOWS, FIXES and SUPERSEDES links
and entities, and for each question its cosine to every note and to its best sentence (and
each note's closeness to each of its clauses), each note
index's score of every note (live or not:
the statement counts a word's hits among all the project's notes) for each query word in each
field (the statement asks for a word in the boosted fields at once: the sum of those scores times
the boosts) and which notes hold each identifier of the query (word for word, and found by the
stemmed index as a phrase). `rank` then scores a question as cypher/search/search_memory.cypher
does for a given Tuning, in microseconds instead of a round trip, so bench/fit_ranking.py can
search the constants; its agreement with the statement is measured in docs/BENCHMARKS.md.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any

import numpy as np

from bench import coding, store
from bench.baselines import BM25, min_max
from bench.coding import must_yield
from bench.coding_data import CodingProject, Question
from bench.datasets import Corpus, TurnKey
from bench.retrieval import DEPTH
from kg_brain.base.vocab import FULLTEXT_INDEX, HANDOFF_KINDS, WORD_INDEX
from kg_brain.domain.query_text import (
    MAX_LEX_WORDS,
    by_code,
    content_word,
    exact_query,
    fielded_query,
    holds_identifier,
    identifiers,
    in_project,
    inside_query,
    lucene_query,
    names,
)
from kg_brain.domain.question import (
    VALUE_SPLIT,
    VALUE_UNITS,
    clauses,
    earlier,
    glued,
    holds_number,
    numbers,
    subject_words,
    value_shapes,
)
from kg_brain.domain.ranking import (
    AS_WRITTEN,
    CLAUSE_OF,
    KNOWN_FLOOR,
    LACKED_STEP,
    LINKED_FAR,
    NEAR_HEAD,
    RARE_SHARE,
    RARE_WORDS,
    SAME_LINKED,
    SENTENCE_REACH,
    SENTENCE_WHOLE,
    UNKNOWN_MOST,
    UNKNOWN_STEP,
    Tuning,
)
from kg_brain.enrichment.embed import Embedder
from kg_brain.store.db import Database
from kg_brain.store.notes import project_share
from kg_brain.store.share import STOP_WORDS

FIELDS = ("content", "title", "keywords", "context")
ABSENT = "absent"  # the kind of a question about nothing stored
CHAT = "chat"  # the kind of a question of a conversation (LoCoMo): scored by recall@10
LEX_LIMIT = 5_000  # full-text candidates per word and field: every match of a project
FIX_TIE = 0.01  # share of a lifted fix's own score added to its lift (search_memory.cypher)
# share of the score a later note takes from a note yielding to it, times its own cosine to
# the query ((1 + cos) / 2), added to it (fragments/current_first)
CURRENT_TIE = 0.001
SUMMARY = "session_summary"  # states the values of several subjects (fragments/current_first)


@dataclass
class Notes:
    """One project's live notes: ids, kinds, creation and statement times, unit embeddings,
    the unit vectors of their sentences (`sentence_of`: each one's note), links as index pairs
    (later, earlier) for FOLLOWS, (fix, mistake) for FIXES, (new, old) for SUPERSEDES
    (`asserted`: those someone linked, not the write path), and the entities (with how many
    notes mention each) each note mentions."""

    ids: list[str]
    kinds: np.ndarray
    created: np.ndarray
    vectors: np.ndarray
    follows: np.ndarray
    fixes: np.ndarray
    fix_weights: np.ndarray  # each FIXES link's weight, in the order of `fixes`
    supersedes: np.ndarray
    asserted: np.ndarray
    entities: list[dict[str, int]]
    entity_kinds: dict[str, str]
    texts: list[str]
    order: np.ndarray  # each note's place among the ids sorted: ties go to the smaller id
    stated: np.ndarray  # when each was written or last rewritten by update_memory
    sentences: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    sentence_of: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    @cached_property
    def bm25(self) -> BM25:
        """The fusion baseline's BM25 over every live note's title and content."""
        return BM25(self.texts)

    @cached_property
    def fix_pairs(self) -> set[tuple[int, int]]:
        """The FIXES links as (fix, mistake) pairs."""
        return {(int(a), int(b)) for a, b in self.fixes}

    @cached_property
    def linked(self) -> set[tuple[int, int]]:
        """The SUPERSEDES links as pairs both ways."""
        pairs = {(int(a), int(b)) for a, b in self.supersedes}
        return pairs | {(b, a) for a, b in pairs}


@dataclass
class Asked:
    """One question over a project's notes: the signals per note and what it expects."""

    kind: str
    contextual: bool
    history: bool
    cosine: np.ndarray
    # per query word and field, each note's stemmed index score, then those of the project's
    # notes that are not live (archived, fleeting) holding a word of the query: the statement
    # counts them among a word's hits
    words: list[dict[str, np.ndarray]]
    written: list[dict[str, np.ndarray]]  # the same from the index of words as written
    size: int  # the project's notes (the statement's count)
    # terms x notes: the note holds the identifier word for word, and the note index finds it
    # as a phrase (fragments/exact_matches)
    holders: np.ndarray
    # terms x notes: the note's title or content holds the identifier, found by the index or not
    # (inside a longer token: "community.hashi_vault"), as fragments/fixes_of_mistake and
    # fragments/current_first test it
    contains: np.ndarray
    expected: set[int]
    pairs: list[tuple[int, int]]
    named: bool = False  # the query names what it asks for (kg_brain.domain.query_text.names)
    by_code: bool = False  # ... by a code (kg_brain.domain.query_text.by_code)
    before: bool = False  # a history question asking for the value just before the one named
    # per query word (as `words`), whether it is a content word (query_text.content_word); none
    # when empty
    content: list[bool] = field(default_factory=list)
    text: str = ""  # the question as asked
    # each note's best sentence's cosine to the query (nan: a note without sentences; none:
    # no note has any)
    best: np.ndarray | None = None
    # per clause of a question asking several things (question.clauses), each note's closeness
    # to it as the statement reads it (`close`: SENTENCE_WHOLE times the cosine, the rest the
    # best sentence's); (0, notes) for a question of one
    clauses: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))


def _pairs(rows: list[store.RankingNote], field: str, at: dict[str, int]) -> np.ndarray:
    got = [(at[r["zk_id"]], at[o]) for r in rows for o in r[field]  # type: ignore[literal-required]
           if o in at]
    pairs: np.ndarray = np.asarray(got, dtype=np.int64).reshape(-1, 2)
    return pairs


def read_notes(db: Database, project: str) -> Notes:
    rows = store.ranking_notes(db, project=project)
    at = {r["zk_id"]: i for i, r in enumerate(rows)}
    vectors = np.asarray([r["embedding"] for r in rows], dtype=np.float64)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    sentences = np.asarray([v for r in rows for v in r["sentences"]],
                           dtype=np.float64).reshape(-1, vectors.shape[1])
    sentences /= np.linalg.norm(sentences, axis=1, keepdims=True)
    return Notes(ids=[r["zk_id"] for r in rows], kinds=np.asarray([r["note_kind"] for r in rows]),
                 created=np.asarray([r["created"] for r in rows], dtype=np.float64),
                 vectors=vectors, follows=_pairs(rows, "follows", at),
                 fixes=_pairs(rows, "fixes", at),
                 fix_weights=np.asarray([w for r in rows
                                         for o, w in zip(r["fixes"], r["fix_weights"], strict=True)
                                         if o in at], dtype=np.float64),
                 supersedes=_pairs(rows, "supersedes", at),
                 asserted=_pairs(rows, "asserted", at),
                 entities=[dict(zip(r["entities"], r["entity_notes"], strict=True))
                           for r in rows],
                 entity_kinds={e: k for r in rows
                               for e, k in zip(r["entities"], r["entity_kinds"], strict=True)},
                 texts=[f"{r['title']}\n{r['content']}".lower() for r in rows],
                 order=np.argsort(np.argsort([r["zk_id"] for r in rows])),
                 stated=np.asarray([r["stated"] for r in rows], dtype=np.float64),
                 sentences=sentences,
                 sentence_of=np.asarray([i for i, r in enumerate(rows) for _ in r["sentences"]],
                                        dtype=np.int64))


def ask(db: Database, embedder: Embedder, notes: Notes, project: str, text: str, kind: str,
        contextual: bool, expected: set[int], pairs: list[tuple[int, int]]) -> Asked:
    """The signals of one question over `notes` (one embedding, and one per clause of a
    question asking several things, one query per word and field, one per identifier)."""
    kept = [w for w in lucene_query(text).split() if w not in STOP_WORDS][:MAX_LEX_WORDS]
    hits = {index: [{name: _index_hits(db, project, fielded_query(word, {name: 1.0}), index)
                     for name in FIELDS} for word in kept]
            for index in (FULLTEXT_INDEX, WORD_INDEX)}
    others = sorted({z for found in hits.values() for word in found for got in word.values()
                     for z in got} - set(notes.ids))
    at = {z: i for i, z in enumerate([*notes.ids, *others])}
    words, written = ([{name: _scores(got, at) for name, got in word.items()}
                       for word in hits[index]] for index in (FULLTEXT_INDEX, WORD_INDEX))
    terms = identifiers(text)
    contains = np.asarray([[holds_identifier(body, t) for body in notes.texts] for t in terms],
                          dtype=bool).reshape(len(terms), len(notes.ids))
    found = _index_hits(db, project, exact_query(terms)) if terms else {}
    phrased = np.asarray([[z in found for z in notes.ids]], dtype=bool)
    # a term no phrase candidate holds: the word index's candidates for those inside a word
    if (contains & phrased).any(axis=1).all() or not inside_query(terms):
        inside = np.zeros_like(phrased)
    else:
        found = _index_hits(db, project, inside_query(terms), WORD_INDEX)
        inside = np.asarray([[z in found for z in notes.ids]], dtype=bool)
    holders = contains & (phrased | inside)
    vector = np.asarray(embedder.encode(text), dtype=np.float64)
    vector /= np.linalg.norm(vector)
    asks = earlier(text)
    parts = [np.asarray(v, dtype=np.float64) for v in embedder.encode_many(clauses(text))]
    return Asked(kind=kind, contextual=contextual, history=asks is not None,
                 before=asks == "before",
                 cosine=notes.vectors @ vector, words=words,
                 written=written,
                 size=int(project_share(db, project=project)["project_notes"]),
                 holders=holders, contains=contains, expected=expected, pairs=pairs,
                 named=names(text, terms), by_code=by_code(text, terms),
                 content=[content_word(w) for w in kept], text=text,
                 best=best_sentences(notes, vector),
                 clauses=np.asarray([close(notes, v / np.linalg.norm(v)) for v in parts]
                                    ).reshape(len(parts), len(notes.ids)))


def close(notes: Notes, vector: np.ndarray) -> np.ndarray:
    """Each note's closeness to the unit `vector` of a clause as search_memory reads it:
    SENTENCE_WHOLE times its cosine plus the rest times its best sentence's (its cosine
    without sentences)."""
    cosine: np.ndarray = notes.vectors @ vector
    best = best_sentences(notes, vector)
    if best is None:
        return cosine
    out: np.ndarray = np.where(np.isnan(best), cosine,
                               SENTENCE_WHOLE * cosine + (1.0 - SENTENCE_WHOLE) * best)
    return out


def best_sentences(notes: Notes, vector: np.ndarray) -> np.ndarray | None:
    """Each note's best sentence's cosine to the unit `vector` (nan for a note without
    sentences), or None when no note has any."""
    if not notes.sentence_of.size:
        return None
    best = np.full(len(notes.ids), -np.inf)
    np.maximum.at(best, notes.sentence_of, notes.sentences @ vector)
    out: np.ndarray = np.where(np.isfinite(best), best, np.nan)
    return out


def matched(notes: Notes, q: Asked, keep: np.ndarray, pool: int) -> np.ndarray:
    """fragments/nearest_in_project's re-score as search_memory reads it: each of the kept
    notes best by the cosine (SENTENCE_REACH, at least `pool`) scores SENTENCE_WHOLE times its
    cosine plus the rest times its best sentence's (its cosine without sentences); any other
    note 2 below its cosine (the vector channel, the current value first and the relevance
    floor read this score; search_memory.cypher's `match`)."""
    reach = _top(q.cosine, keep, max(SENTENCE_REACH, pool), notes.order)
    out: np.ndarray = q.cosine - 2.0
    best = q.cosine if q.best is None else np.where(np.isnan(q.best), q.cosine, q.best)
    out[reach] = SENTENCE_WHOLE * q.cosine[reach] + (1.0 - SENTENCE_WHOLE) * best[reach]
    return out


def _index_hits(db: Database, project: str, query: str,
                index: str = FULLTEXT_INDEX) -> dict[str, float]:
    """The note index's score of each of the project's notes, live or not, for `query`."""
    return {row["zk_id"]: row["score"] for row in store.ranking_lexical(
        db, index=index, lex=in_project(query, project), limit=LEX_LIMIT, project=project)}


def _scores(hits: dict[str, float], at: dict[str, int]) -> np.ndarray:
    scores = np.zeros(len(at))
    for zk_id, got in hits.items():
        scores[at[zk_id]] = got
    return scores


def lexical(q: Asked, boosts: dict[str, float]) -> tuple[np.ndarray, np.ndarray]:
    """fragments/lexical_in_project over `q`: each note's lexical score (per word and index,
    asked for in the boosted fields at once: the index's share times the word's idf among the
    project's notes times its score over its best one there) and how many rare words of the
    query it holds in the stemmed index (words at most RARE_SHARE of the notes hold, at least
    one). A word's hits, as in the statement, are all the project's notes that hold it, live or
    not (a word's scores run past the live notes: `Asked.words`)."""
    live = len(q.cosine)
    score = np.zeros(live)
    rare: np.ndarray = np.zeros(live, dtype=np.int64)
    for share, words, counted in ((1.0 - AS_WRITTEN, q.words, True),
                                  (AS_WRITTEN, q.written, False)):
        for word in words if share > 0 else []:
            both = sum((b * word[f] for f, b in boosts.items() if b > 0),
                       np.zeros(len(word["content"])))
            held = both > 0
            df = int(held.sum())
            if not df:
                continue
            idf = math.log(1.0 + (max(q.size - df, 0) + 0.5) / (df + 0.5))
            score += share * idf * both[:live] / both.max()
            if counted and df <= max(1.0, RARE_SHARE * q.size):
                rare += held[:live]
    return score, rare


def unknown(q: Asked, boosts: dict[str, float]) -> int:
    """How many content words of `q` no note of the project holds in the stemmed index's
    boosted fields (fragments/lexical_in_project), at most UNKNOWN_MOST."""
    return min(UNKNOWN_MOST, sum(
        is_content and not any(word[f].any() for f, b in boosts.items() if b > 0)
        for word, is_content in zip(q.words, q.content, strict=False)))


def held(q: Asked, boosts: dict[str, float]) -> tuple[np.ndarray, int]:
    """How many content words of `q` each live note holds in the stemmed index's boosted fields,
    and how many of them some note of the project holds (fragments/lexical_in_project)."""
    live = len(q.cosine)
    holds: np.ndarray = np.zeros(live, dtype=np.int64)
    known = 0
    for word, is_content in zip(q.words, q.content, strict=False):
        both = sum((b * word[f] for f, b in boosts.items() if b > 0),
                   np.zeros(len(word["content"])))
        if is_content and both.any():
            known += 1
            holds += both[:live] > 0
    return holds, known


def signals(db: Database, embedder: Embedder, data: CodingProject, project: str,
            ids: dict[str, str]) -> tuple[Notes, list[Asked]]:
    """A written coding project's notes and the signals of each of its questions."""
    notes = read_notes(db, project)
    asked = [ask(db, embedder, notes, project, q.text, q.type, q.contextual, expected, pairs)
             for q, expected, pairs in _expects(notes, data, ids)]
    asked += [ask(db, embedder, notes, project, text, ABSENT, False, set(), [])
              for text in data.absent]
    return notes, asked


def reworded(db: Database, embedder: Embedder, notes: Notes, data: CodingProject, project: str,
             ids: dict[str, str], other: dict[tuple[str, str], list[str]]) -> list[Asked]:
    """The signals of the other wordings (`other`: (project name, question) -> its wordings) of
    a written coding project's questions, each expecting what its question expects; a question
    without one is left out."""
    return [ask(db, embedder, notes, project, text, q.type, q.contextual, expected, pairs)
            for q, expected, pairs in _expects(notes, data, ids)
            for text in other.get((data.name, q.text), [])]


def _expects(notes: Notes, data: CodingProject, ids: dict[str, str]
             ) -> list[tuple[Question, set[int], list[tuple[int, int]]]]:
    """Each question of `data`, the indexes of the notes it expects and its must-yield pairs."""
    at = {z: i for i, z in enumerate(notes.ids)}
    steps = {k: s for s in data.notes for k in s.stored_keys()}
    return [(q, {at[ids[k]] for k in q.expected if ids[k] in at},
             [(at[ids[b]], at[ids[w]]) for b, w in must_yield(q, steps)
              if ids[b] in at and ids[w] in at]) for q in data.questions]


def chat_signals(db: Database, embedder: Embedder, corpus: Corpus, project: str,
                 ids: dict[TurnKey, str]) -> tuple[Notes, list[Asked]]:
    """A written LoCoMo-format conversation's notes and the signals of each question that has
    evidence among them (its kind: "chat")."""
    notes = read_notes(db, project)
    at = {z: i for i, z in enumerate(notes.ids)}
    asked = []
    for q in corpus.questions:
        expected = {at[ids[k]] for k in q.evidence if k in ids and ids[k] in at}
        if expected:
            asked.append(ask(db, embedder, notes, project, q.text, CHAT, False, expected, []))
    return notes, asked


def _top(score: np.ndarray, keep: np.ndarray, size: int, order: np.ndarray) -> np.ndarray:
    """Indexes of the best `size` kept notes, best first, ties by id (`order`: each note's
    place among the ids sorted)."""
    idx = np.flatnonzero(keep)
    best: np.ndarray = idx[np.lexsort((order[idx], -score[idx]))][:size]
    return best


def _lift(score: np.ndarray, found: np.ndarray, edges: np.ndarray, keep: np.ndarray,
          after: float, before: float) -> np.ndarray:
    """The session step: a note FOLLOWS-adjacent to a found one gains `after` (written after
    it) or `before` of its score, never past 0.99 of the best lifter's score."""
    lift = np.zeros_like(score)
    ceiling = np.full_like(score, -np.inf)
    for src, dst, share in ((edges[:, 1], edges[:, 0], after), (edges[:, 0], edges[:, 1], before)):
        on = found[src] & keep[dst]
        if share > 0 and on.any():
            np.add.at(lift, dst[on], share * score[src[on]])
            np.maximum.at(ceiling, dst[on], 0.99 * score[src[on]])
    grow = np.isfinite(ceiling) & (score < ceiling)
    out = score.copy()
    out[grow] = np.minimum(score[grow] + lift[grow], ceiling[grow])
    return out


def _fix(notes: Notes, q: Asked, score: np.ndarray, found: np.ndarray, keep: np.ndarray,
         t: Tuning) -> np.ndarray:
    """A note that FIXES a found mistake scores at least fix_lift of the mistake's score plus
    FIX_TIE of its own (several fixes of one mistake keep their own order), times the FIXES
    link's weight; at most just below the mistake (0.99) when the query names what it asks for
    and the mistake holds an identifier of it the fix lacks."""
    fix, mistake = notes.fixes[:, 0], notes.fixes[:, 1]
    on = found[mistake] & keep[fix] & (notes.kinds[mistake] == "mistake")
    lacks = (q.contains[:, mistake] & ~q.contains[:, fix]).any(axis=0) if q.named \
        else np.zeros(len(fix), dtype=bool)
    share = t.fix_lift * notes.fix_weights
    share = np.where(lacks, np.minimum(share, 0.99), share)
    lifted = np.full_like(score, -np.inf)
    np.maximum.at(lifted, fix[on], share[on] * score[mistake[on]])
    out: np.ndarray = np.maximum(score, lifted + FIX_TIE * score)
    return out


def _yield(score: np.ndarray, found: np.ndarray, pairs: np.ndarray, t: Tuning) -> np.ndarray:
    """A note superseded by a live note through an asserted link (`pairs`: yielding,
    successor) takes the `superseded` factor when its successor was found scoring at least
    supersede_share of its own score."""
    best = np.zeros_like(score)
    on = found[pairs[:, 1]]
    np.maximum.at(best, pairs[on, 0], score[pairs[on, 1]])
    yields: np.ndarray = np.zeros(len(score), dtype=bool)
    yields[pairs[:, 0]] = True
    if t.supersede_share > 0:
        yields &= best >= t.supersede_share * score
    out: np.ndarray = np.where(yields, score * t.superseded, score)
    return out


def _kept(notes: Notes, q: Asked) -> np.ndarray:
    """The notes a search may answer `q` with: handoffs only for a contextual question."""
    keep: np.ndarray = np.ones(len(notes.ids), dtype=bool) if q.contextual else ~np.isin(
        notes.kinds, [x.value for x in HANDOFF_KINDS])
    return keep


def flat(notes: Notes, q: Asked, t: Tuning, k: int = coding.DEPTH) -> list[int]:
    """The flat cosine's answer (bench/baselines.py Fusion.ranked's vector baseline): the `k`
    notes closest to the query, best first (`t` unread)."""
    return [int(i) for i in _top(q.cosine, _kept(notes, q), k, notes.order)]


def fusion(notes: Notes, q: Asked, t: Tuning, k: int = coding.DEPTH) -> list[int]:
    """The fusion baseline's answer (bench/baselines.py Fusion.ranked): the `k` kept notes best
    by their cosine plus their BM25 over title and content, each min-max normalised over the
    kept notes (`t` unread; the BM25 statistics over every live note, as the baseline's)."""
    keep = _kept(notes, q)
    if not keep.any():
        return []
    bm25 = notes.bm25.scores(q.text)
    fused = np.full(len(notes.ids), -np.inf)
    fused[keep] = min_max(q.cosine[keep]) + min_max(bm25[keep])
    return [int(i) for i in _top(fused, keep, k, notes.order)]


Floor = tuple[float, float, float]  # a hit holding every content word; per unknown; per lacked


@dataclass
class Reach:
    """What the relevance floor reads of a question's best hits: whether one is relevant on
    exact or lexical evidence alone, each one's match (`matched`: a re-scored note's mixed
    score, 2 below the cosine for any other) and how many content words of the query
    it holds (none outside the lexical channel's pool), how many content words no note of the
    project holds (at most UNKNOWN_MOST) and how many some note holds."""

    evident: bool
    cosines: np.ndarray
    holds: np.ndarray
    unknown: int
    known: int

    def relevant(self, floor: Floor) -> bool:
        """Whether a hit passes `floor`: its match reaches the floor raised by `floor[1]` per
        unknown word and by `floor[2]` per known word it lacks, or it passes on evidence."""
        least = floor[0] + floor[1] * self.unknown + floor[2] * (self.known - self.holds)
        return self.evident or bool((self.cosines >= least).any())


def rank(notes: Notes, q: Asked, t: Tuning, k: int = coding.DEPTH,
         floor: Floor = (KNOWN_FLOOR, UNKNOWN_STEP, LACKED_STEP)) -> list[int]:
    """The note indexes search_memory answers for `q` under `t` asked for `k`, best first (each
    channel's list holds at least k notes, as in the statement); `floor`: the relevance floor
    of a hit holding every content word of the query, what each one no note of the project
    holds adds and what each other one the hit lacks adds."""
    top, reach = before_floor(notes, q, t, k)
    return top if reach.relevant(floor) else []  # else nothing relevant stored


def before_floor(notes: Notes, q: Asked, t: Tuning,
                 k: int = coding.DEPTH) -> tuple[list[int], Reach]:
    """search_memory's best `k` notes for `q` under `t` before the relevance floor, and what
    the floor reads of them."""
    keep = _kept(notes, q)
    pool = max(t.pool, k)
    score = np.zeros(len(notes.ids))
    match = matched(notes, q, keep, pool)
    vec = _top(match, keep, pool, notes.order)
    low = min(match[vec[-1]], match[vec[0]] - t.vec_span) if vec.size else 0.0
    span = match[vec[0]] - low if vec.size else 0.0
    score[vec] += t.w_vec * ((match[vec] - low) / span if span > 0 else 1.0)
    found: np.ndarray = np.zeros(len(notes.ids), dtype=bool)
    found[vec] = True
    boosts = {"content": 1.0, "title": t.lex_title, "keywords": t.lex_keywords,
              "context": t.lex_context}
    scores, rare = lexical(q, boosts)
    holds, known = held(q, boosts)
    lex = _top(scores, keep & (scores > 0), pool, notes.order)
    strong: np.ndarray = np.zeros(len(notes.ids), dtype=bool)
    pooled: np.ndarray = np.zeros(len(notes.ids), dtype=bool)
    if lex.size:
        score[lex] += t.w_lex * scores[lex] / scores[lex[0]]
        found[lex] = True
        strong[lex] = rare[lex] >= RARE_WORDS
        pooled[lex] = True
    exact = _exact(q, keep, t)
    score += (0.0 if q.history else t.w_exact) * exact
    found |= exact > 0
    score = _lift(score, found, notes.follows, keep, t.session_after, t.session_before)
    found |= score > 0
    if t.fix_lift > 0 and notes.fixes.size:
        score = _fix(notes, q, score, found, keep, t)
        found |= score > 0
    score = _yield(score, found, notes.asserted[:, ::-1] if not q.history
                   else notes.asserted, t)
    order = _top(score, found, len(notes.ids), notes.order)
    if t.same_n > 0:
        score = current_first(notes, q, order, score, t, match)
        order = _top(score, found, len(notes.ids), notes.order)
    order = by_clause(order, q)
    top = order[:k]
    # the identifiers at most exact_df of the hits hold, found by the exact channel or not
    rare_held = q.contains[q.contains[:, order].sum(axis=1) <= t.exact_df]
    return [int(i) for i in top], Reach(
        evident=bool(((exact[top] > 0).any() or strong[top].any() or rare_held[:, top].any())
                     and (not q.by_code or q.contains[:, top].any())),
        cosines=match[top],
        holds=np.where(pooled[top], holds[top], 0), unknown=unknown(q, boosts), known=known)


def by_clause(order: np.ndarray, q: Asked) -> np.ndarray:
    """A question asking several things: after the first place, the hit closest to each clause
    among the best CLAUSE_OF takes one of the best NEAR_HEAD places, clause by clause; the
    others follow in their order."""
    if not len(q.clauses) or not order.size:
        return order
    lead = [0]
    for near in q.clauses:
        if len(lead) >= NEAR_HEAD:
            break
        pick = int(np.argmax(near[order[:CLAUSE_OF]]))  # the first of equals, as the statement
        if pick not in lead:
            lead.append(pick)
    lead.sort()
    placed: np.ndarray = order[lead + [i for i in range(order.size) if i not in lead]]
    return placed


def _exact(q: Asked, keep: np.ndarray, t: Tuning) -> np.ndarray:
    """fragments/exact_matches: per note, 1/(holders) summed over the query's identifiers
    that it holds and at most exact_df notes hold."""
    if not q.holders.size:
        return np.zeros(len(keep))
    held = q.holders & keep
    counts = held.sum(axis=1)
    rare = (counts > 0) & (counts <= t.exact_df)
    signal: np.ndarray = (held[rare] / counts[rare, None]).sum(axis=0)
    return signal


def current_first(notes: Notes, q: Asked, ranked: np.ndarray, score: np.ndarray,
                  t: Tuning, match: np.ndarray) -> np.ndarray:
    """fragments/current_first: among the best same_n hits a note yields to each one of the
    same subject stated later (earlier for a history question; `stated`: written or rewritten
    by update_memory) that, asked for the current value, holds every identifier of the query it
    holds; the later note takes the best score of those yielding to it, and a note yielding to
    m notes scores at most 0.99^m times the best of theirs. Asked for the value just before
    (`before`), one of these notes yields, to the one stated just before it: the first stated
    of those holding a number the question names (question.holds_number; none holding one:
    none), or for a question naming none the best. Mistakes and open threads take no part, a
    session summary never yields; a fix yields only asked for history, to a note it is
    SUPERSEDES-linked to, and only asked for the current value is one yielded to. Asked for
    the current value, a note also
    yields to a SUPERSEDES-linked note of its kind among the best LINKED_FAR times same_n, and
    to a later session summary among the best same_n by the entity and the reach alone; of the
    notes it yields to, the closest to the query ranks first (CURRENT_TIE). Asked for history,
    the score passes down the chain: of a value changed several times, the first takes it.
    Asked for a value of some shape (question.value_shapes), a note (a fix too) also yields to
    a later valued hit among the best same_n that `restates` its value. `match`: what stands for
    each note's cosine to the query (`matched`)."""
    head = [int(i) for i in ranked[:t.same_n]]
    far = [int(i) for i in ranked[:LINKED_FAR * t.same_n]]
    fixes, linked = notes.fix_pairs, notes.linked
    shapes = [] if q.history else value_shapes(q.text)

    def restated(a: int, b: int) -> bool:
        return bool(shapes) and b in head and notes.kinds[b] not in VALUELESS \
            and restates(notes.texts[a], notes.texts[b], q.text, shapes)

    pairs = [(a, b) for a in head if notes.kinds[a] not in VALUELESS
             for b in far if b != a
             and (notes.kinds[b] not in ((*VALUELESS, "fix") if q.history else VALUELESS)
                  or not q.history and notes.kinds[b] == SUMMARY)
             and (notes.stated[b] < notes.stated[a] if q.history
                  else notes.stated[b] > notes.stated[a])
             and (q.history or not (q.contains[:, a] & ~q.contains[:, b]).any())
             and (a, b) not in fixes and (b, a) not in fixes
             and (restated(a, b)
                  or (notes.kinds[a] != "fix" or q.history and (a, b) in linked)
                  and (b in head or not q.history and notes.kinds[b] == notes.kinds[a]
                       and (a, b) in linked)
                  and same_subject(notes, match, a, b, t, (a, b) in linked))]
    if q.before:
        named = numbers(q.text)
        top = min((a for a, _ in pairs if any(holds_number(notes.texts[a], x) for x in named)),
                  key=lambda a: notes.stated[a], default=None) if named \
            else next((a for a in head if notes.kinds[a] not in VALUELESS), None)
        earlier = [p for p in pairs if p[0] == top]
        pairs = [max(earlier, key=lambda p: notes.stated[p[1]])] if earlier else []
    lifted = score.copy()
    for _ in range(len(pairs) if q.history else 1):  # asked for history, down the chain
        step = lifted.copy()
        for a, b in pairs:
            lifted[b] = max(lifted[b], step[a] * (1.0 + CURRENT_TIE * (1.0 + match[b]) / 2.0))
    out = lifted.copy()
    for a in {a for a, _ in pairs}:
        over = [lifted[b] for x, b in pairs if x == a]
        out[a] = min(lifted[a], 0.99 ** len(over) * max(over))
    return out


def _words(text: str) -> list[str]:
    """A note's words as fragments/current_first reads them (question.VALUE_SPLIT, one
    trailing . : ! or ? dropped)."""
    for c in VALUE_SPLIT:
        text = text.replace(c, " ")
    return [w[:-1] if len(w) > 1 and w[-1] in ".:!?" else w for w in text.split(" ") if w]


_NUMBER_TEXT = r"[0-9]+(\.[0-9]+)?"


@lru_cache(maxsize=65536)
def _values(text: str) -> frozenset[str]:
    """The values a note states, each "<shape>:<value>", as fragments/current_first reads them."""
    ws = _words(text)
    out = set()
    for k, w in enumerate(ws):
        if re.fullmatch(r"v?[0-9]+(\.[0-9]+)+", w):
            out.add("version:" + (w[1:] if w.startswith("v") else w))
        if re.fullmatch(_NUMBER_TEXT + "%", w):
            out.add("pct:" + w[:-1])
        if re.fullmatch(r"\$[0-9][0-9,]*(\.[0-9]+)?", w):
            out.add("money:" + w[1:].replace(",", ""))
        if re.fullmatch(r".*[a-z0-9]:[0-9]{2,5}", w):
            out.add("port:" + w.split(":")[-1])
        if re.fullmatch(r"((db|cache)\.)?[a-z][0-9]+[a-z]*\.[0-9]*x?"
                        r"(nano|micro|small|medium|large|xlarge)", w):
            out.add("class:" + w)
        if k + 1 < len(ws) and re.fullmatch(_NUMBER_TEXT, w) and ws[k + 1] in VALUE_UNITS:
            out.add(f"q:{VALUE_UNITS[ws[k + 1]]}:{w}")
        out.update(f"q:{unit}:{w[:-len(u)]}" for u, unit in VALUE_UNITS.items()
                   if re.fullmatch(_NUMBER_TEXT + u, w))
    return frozenset(out)


def _shape(value: str) -> str:
    return value[:value.rindex(":")]


def restates(earlier: str, later: str, question: str, shapes: list[str]) -> bool:
    """fragments/current_first's route for a value no rule linked: the later note (texts
    lower-cased as Notes.texts) restates a value of a shape the question asks for that the
    earlier one states, beside another of that shape; both name a subject word of the question
    (question.subject_words, as itself or with an s); the later names nothing (a word of no
    digit with a dash, an underscore, a dot or colon inside) the earlier one and the question
    do not hold (question.glued)."""
    va, vb = _values(earlier), _values(later)
    if not any(v in va and any(v.startswith(h) for h in shapes)
               and any(u not in va and _shape(u) == _shape(v) for u in vb) for v in vb):
        return False
    if not any(re.search(rf"\b{w}s?\b", earlier) and re.search(rf"\b{w}s?\b", later)
               for w in subject_words(question)):
        return False
    held = {glued(w) for w in _words(later) if len(w) >= 3 and not re.search("[0-9]", w)
            and re.fullmatch(r".*(_|[a-z0-9][.:][a-z0-9]|[a-z0-9]-[a-z0-9]).*", w)}
    earlier_glued, question_glued = glued(earlier), glued(question)
    return all(m in earlier_glued or m in question_glued for m in held)


VALUELESS = ("mistake", "session_summary", "open_thread")  # kinds stating no value (a fix
# states the one it set, and yields only asked for history, to a note it is linked to)


def same_subject(notes: Notes, match: np.ndarray, a: int, b: int, t: Tuning,
                 linked: bool) -> bool:
    """Two notes state the same subject (a yielding to b): a SUPERSEDES link, mutual cosine >=
    SAME_LINKED and b of a's kind or either a fix, or mutual cosine >= same_cos (any when b is a
    session summary), the later one (b) at most same_reach less close to the query and an
    entity both mention that at most same_subject notes mention, not a person, a name or a
    date."""
    mutual = float(notes.vectors[a] @ notes.vectors[b])
    if linked and mutual >= SAME_LINKED and (notes.kinds[b] in (notes.kinds[a], "fix")
                                             or notes.kinds[a] == "fix"):
        return True
    if (mutual < t.same_cos and notes.kinds[b] != SUMMARY
            or match[b] < match[a] - t.same_reach):
        return False
    shared = notes.entities[a].keys() & notes.entities[b].keys()
    return any(notes.entities[a][e] <= t.same_subject
               and notes.entity_kinds[e] not in ("person", "proper_noun", "date") for e in shared)


def score(notes: Notes, asked: list[Asked], t: Tuning,
          by: Callable[[Notes, Asked, Tuning, int], list[int]] = rank
          ) -> list[tuple[str, dict[str, float]]]:
    """(question kind, hit@1, MRR, all@3, right: hit@1 with no outdated note or mistake above
    the note that replaces or fixes it) of each question under `t` (ranked `by` search_memory's
    mirror, or the flat cosine); (absent, nothing: 100 when answered with nothing) of each
    question about nothing stored."""
    out = []
    for q in asked:
        ranked = by(notes, q, t, DEPTH if q.kind == CHAT else coding.DEPTH)
        if q.kind == ABSENT:
            out.append((ABSENT, {"nothing": 100.0 * (not ranked)}))
            continue
        first = next((i for i, x in enumerate(ranked) if x in q.expected), None)
        wrong = any(w in ranked and (b not in ranked or ranked.index(w) < ranked.index(b))
                    for b, w in q.pairs)
        out.append((q.kind, {"hit@1": 100.0 * (first == 0),
                             "mrr": 0.0 if first is None else 1.0 / (first + 1),
                             "all@3": 100.0 * q.expected.issubset(ranked[:3]),
                             "recall@10": 100.0 * len(q.expected.intersection(ranked[:10]))
                             / len(q.expected),
                             "right": 100.0 * (first == 0 and not wrong)}))
    return out


def by_kind(rows: list[tuple[str, dict[str, float]]]) -> dict[str, Any]:
    """Mean of each metric per question kind and overall."""
    groups: dict[str, list[dict[str, float]]] = defaultdict(list)
    for kind, m in rows:
        groups[kind].append(m)
        if kind not in (ABSENT, CHAT):
            groups["overall"].append(m)
    return {k: {m: round(float(np.mean([x[m] for x in v])), 3) for m in v[0]} | {"n": len(v)}
            for k, v in groups.items()}
