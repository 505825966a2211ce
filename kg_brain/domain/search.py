"""The read side: hybrid search, deep (iterative) search, neighbourhoods, access stamping.

Every search embeds the query once in Python and sends one Cypher statement: the vector index,
the full-text index, the later hops (query vectors blended inside Cypher), the neighbour
expansion and the access stamp all run in that statement. Once a minute per project and process
a count of the project's notes comes first (kg_brain/store/share.py). The baselines the searches
are measured against live with the benchmarks (bench/baselines.py).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field

from kg_brain.base import validate
from kg_brain.base.errors import NotFound
from kg_brain.base.vocab import HANDOFF_KINDS
from kg_brain.domain.deps import Deps
from kg_brain.domain.query_text import (
    HISTORY,
    clauses,
    exact_query,
    fielded_query,
    identifiers,
    in_project,
    just_before,
    lucene_query,
    names,
    whole_query,
    word_queries,
)
from kg_brain.enrichment.llm.entities import extract_entities
from kg_brain.shapes.models import EntityView, FoundBy, Hit, HitLink
from kg_brain.store import search as statements

MAX_QUERY_CHARS = 4_000
MAX_RELATED = 100
# Counting a word's hits (search_memory's idf in the project) reads each of them: in a project of
# 38k notes search_memory's database time went from 3.0 to 8.2-8.7 raw vector queries. A project
# of more notes than OWN_IDF_MAX is searched by the whole query as the note index scores it, and
# a hit's lexical score makes it relevant from Tuning.lex_floor.
OWN_IDF_MAX = 5_000
# Lexical evidence of relevance, whatever the cosine, in a project searched word by word: a
# hit of the lexical channel holding at least RARE_WORDS of the query's words that each at
# most RARE_SHARE of the project's notes hold (at least one note). Counted, not scored, so it
# reads alike in every project. Chosen with Tuning.floor on the coding tuning split through the
# mirror (docs/BENCHMARKS.md; 1-4 words held by at most 1-20% of the notes).
RARE_WORDS = 3
RARE_SHARE = 0.1
# A query word is asked of the stemmed note index and of the one of words as written, whose
# scores weigh AS_WRITTEN (query_text.word_queries). Chosen on the tuning splits (BENCHMARKS).
AS_WRITTEN = 0.25
# The current value first (Tuning.same_n): a SUPERSEDES link the write path made makes two notes
# one subject when their mutual cosine (in [-1, 1]) is at least this; the write path also links
# look-alikes of a project's other services, less alike than that.
SAME_LINKED = 0.5
# deep_search's close hits first: the best NEAR_HEAD places go to the first hits among the best
# NEAR_OF whose cosine to the query (in [-1, 1]) is at most NEAR_GAP below the closest of
# those, or that hold a rare identifier of the query, or that fix or supersede the closest; a
# hit passed over scores just below the last of them. The graph step and the lexical channel
# lift notes that can be about something else into places a second needed note was owed.
# Chosen by leave-one-project-out over seven coding tuning projects (gap 0.1-0.3, 9 = off; of
# 5 or 10; every fold chose 0.2 of 5), replaying the statement's best 40 in numpy: every needed
# note in the top 3 for 59.5% of the multi-note questions against 52.4% through Neo4j. Then,
# for a question asking several things (query_text.clauses), the closest hit to each clause
# among the best CLAUSE_OF takes one of those places after the first: chosen likewise over
# the eleven projects (5-40 or off; every fold chose 15), 62.9% against 57.1% left out.
NEAR_GAP = 0.2
NEAR_OF = 5
NEAR_HEAD = 3
CLAUSE_OF = 15


@dataclass(frozen=True)
class Tuning:
    """search_memory's constants, measured with `kg-brain bench retrieval` (the bench module).

    The ranking weights marked "fitted" are refitted by `python -m bench.fit_ranking MANIFEST
    --locomo MANIFEST --data FILE` (bench/fit_ranking.py: coordinate ascent on a numpy mirror
    of search_memory.cypher over the stored notes of the coding tuning projects and the LoCoMo
    tuning conversations, each suite weighing alike, the variant chosen by leave-one-project-out
    on the coding projects: the channel weights; the others kept the values the coding set
    alone was fitted to). Refitted over the eleven coding tuning projects, no set of them beat
    these values left out and the refit on everything returned them
    (docs/bench/tune/fit-ranking11.json)."""

    fetch: int = 100  # vector index candidates (the index cannot filter by project); cost ~ k
    lex_fetch: int = 250  # full-text candidates
    pool: int = 20  # per-channel ranked list fed to fusion (fitted)
    fusion: Literal["linear", "rrf"] = "linear"
    rrf_k: float = 8.0  # small k: the top ranks of each channel dominate (LoCoMo: +2 overall)
    w_vec: float = 1.0  # the scale the other weights are read against
    w_lex: float = 1.0  # fitted
    # A note superseded by a live note yields to it (score times `superseded`, fitted) when
    # that note was found scoring at least supersede_share (fitted) of its own score: a
    # SUPERSEDES link to a note the query does not reach is weak evidence (the write path links
    # look-alikes too), and demoting on it cost lookups. Only a link someone asserted: the
    # write path also links a note of several facts to a later note changing one of them (a
    # question about another of its facts lost its answer to the factor), and its links count
    # through the current value first alone (same_n, SAME_LINKED). On the coding tuning split
    # (every SUPERSEDES link there the write path's) hit@1 84.7 against 83.4, lookups 65.7
    # against 64.3, the current value 90.0 against 87.5; leave-one-project-out refitting
    # superseded and supersede_share with the write path's links yielding chose 1.0 (no
    # yield) in every fold.
    superseded: float = 0.6
    supersede_share: float = 0.5
    # The vector score runs from 0 at the pool's lowest cosine, or vec_span (fitted) below its
    # best when that is lower: among close cosines, the lexical channel decides more.
    vec_span: float = 0.2
    # Full-text field boosts beside content's 1 (fielded_query; each query word is asked for in
    # these fields at once), fitted: the coding set alone wanted the title at 2, with the LoCoMo
    # conversations 0.25 (a turn's title is its first words); keywords and context at 0 (an
    # enriched title and keywords repeat the content, an evolved context is other notes' words).
    lex_title: float = 0.25
    lex_keywords: float = 0.0
    lex_context: float = 0.0
    # Least cosine a hit must reach, else "nothing relevant stored", unless it holds a rare
    # identifier of the query (the exact channel) or RARE_WORDS rare words of it. Chosen by
    # leave-one-project-out on the eleven coding tuning projects through the mirror
    # (bench/ranking.py, `python -m bench.fit_ranking MANIFEST --floor-share P`): for each
    # project, the lowest floor, by 0.01, that answers at least P% of the other ten projects'
    # questions about nothing stored with nothing. P is the least share whose left-out rate
    # clears the 80% target: asking 80% left out 78% (0.44-0.46), asking 82% left out 82% at
    # hit@1 74.2 (0.44-0.47). On all eleven, the lowest floor answering 82% is 0.46 (83.5%,
    # hit@1 74.3; 0.44 gave 78.4% at 74.5). An earlier margin (90% on seven projects) was
    # asked after a reading of the coding check split; this one by the rate left out on tune.
    floor: float = 0.46
    # ... or, in a project of more than OWN_IDF_MAX notes (searched by the whole query, scored
    # by the note index's BM25, so no rare words are counted), a lexical score of at least
    # lex_floor: the lowest, by 0.5, that kept at least 80% of the coding tuning split's
    # questions about nothing stored answered with nothing when every project was searched so.
    lex_floor: float = 8.0
    # A note that FIXES a found note scores at least this share of the found note's score
    # (0: off): a symptom question words the failure, and the fix is what it asks for. Fitted:
    # just above the mistake.
    fix_lift: float = 1.01
    # The session (FOLLOWS): the note written just after a found note gets this share of the
    # found note's score, the one written just before it session_before. A turn answers the one
    # before it; a step of a task explains the next.
    session_after: float = 0.5
    session_before: float = 0.2
    # Exact identifiers (fragments/exact_matches): a note holding a query's identifier word for
    # word adds w_exact times its signal (1 when it alone holds it; split among its holders)
    # and counts as relevant whatever its cosine; a term more than exact_df notes hold is no
    # rare token. Both fitted.
    w_exact: float = 4.0
    exact_df: int = 5
    # The current value first (fragments/current_first): among the best same_n hits (the
    # current note may rank far below the one it replaced), a note yields to a hit stating the
    # same thing later (written, or rewritten by update_memory): a SUPERSEDES link either way
    # and a mutual cosine >= SAME_LINKED, or a mutual cosine >= same_cos, a cosine to the query
    # at most same_reach below its own and an entity both mention that at most same_subject
    # notes mention (not a person, a name or a date: in a chat every turn names its speaker
    # and day). The later note takes the best score of those yielding to it, each of them
    # falls just below it; mistakes and handoffs take no part, a fix (stating the value it set)
    # is yielded to, never yields. Asked for the current value, a note holding an identifier of
    # the query the later one lacks does not yield (look-alikes "alpha-3", "alpha-4"); a history
    # question turns it round. Chosen by leave-one-project-out on the coding tuning split
    # through the mirror (bench/ranking.py; docs/BENCHMARKS.md): same_n 3, 10, 20, 40;
    # SAME_LINKED 0.4-0.6; same_cos 0.6, 0.7; same_reach 0.15-0.3; same_subject 4, 8; fixes,
    # SUPERSEDES and the reach on linked pairs in or out; same_n 20 cost LoCoMo 0.2-1 point.
    same_n: int = 10
    same_cos: float = 0.6
    same_reach: float = 0.15
    same_subject: int = 4


@dataclass(frozen=True)
class DeepTuning:
    """deep_search's constants (cypher/search/deep_search.cypher says what each one does),
    measured with `kg-brain bench retrieval` on the coding set, LoCoMo and MuSiQue."""

    pool: int = 40
    ent_fetch: int = 20  # entity-name index candidates
    ent_n: int = 8  # question entities followed
    ent_partial: float = 0.5  # an entity matched by some of its name's words
    ent_share: float = 0.05  # an entity in more than this share of the notes leads nowhere
    ent_floor: int = 12  # ... unless it has at most this many notes
    ent_ceiling: int = 500  # and never one in more notes: bounds the graph step at any size
    blend_n: int = 3
    alpha: float = 0.5
    expand_n: int = 5
    nb_limit: int = 3
    w_vec: float = 1.0
    # The lexical channel is search_memory's (each word by its idf in the project), over its
    # best hit: chosen from 0.5, 1, 2, 3, 4 by the mean of the coding tuning split's hit@1 and
    # the LoCoMo tuning conversations' recall@10 (docs/BENCHMARKS.md).
    w_lex: float = 2.0
    w_ent: float = 0.2
    w_bridge: float = 0.1
    w_fix: float = 0.3
    w_link: float = 0.1
    decay: float = 0.3
    superseded: float = 0.6
    supersede_share: float = 0.5  # as Tuning.supersede_share and vec_span
    vec_span: float = 0.2
    floor: float = 0.46  # as Tuning.floor (with RARE_WORDS; no lexical score floor)
    fix_lift: float = 1.01  # as Tuning.fix_lift (and NAMING_WORDS), from the final ranking
    session_after: float = 0.5  # as Tuning.session_after, from the notes of every hop
    session_before: float = 0.2
    w_exact: float = 4.0  # as Tuning.w_exact, exact_df, same_n, same_cos and same_subject
    exact_df: int = 5
    same_n: int = 10
    same_cos: float = 0.6
    same_reach: float = 0.15
    same_subject: int = 4

    def statement_map(self) -> dict[str, float]:
        """The constants the statement reads as `$tuning.<name>`; the pool and the entity cap
        (ent_share, ent_floor, ent_ceiling) are sized per call and passed apart."""
        return {f: v for f, v in asdict(self).items()
                if f not in ("pool", "ent_share", "ent_floor", "ent_ceiling")}


class RelatedNode(BaseModel):
    zk_id: str
    title: str
    note_kind: str
    memory_type: str
    depth: int


class RelatedEdge(BaseModel):
    src: str
    dst: str
    type: str
    reason: str = ""
    weight: float = 0.0


class Related(BaseModel):
    zk_id: str
    project: str = Field(description="the note's project")
    entities: list[EntityView] = Field(description="what the note is about, rarest first")
    nodes: list[RelatedNode] = Field(description="the nearest neighbours, fewest hops first")
    edges: list[RelatedEdge]
    total_nodes: int = Field(description="neighbours within depth; more than `nodes` when "
                                         "max_nodes cut the rest")


def _excluded(include_contextual: bool) -> list[str]:
    return [] if include_contextual else [k.value for k in HANDOFF_KINDS]


def _hit(row: dict[str, Any], score: float | None = None,
         found_by: list[dict[str, Any]] | None = None) -> Hit:
    return Hit(
        zk_id=row["zk_id"], title=row["title"], score=round(float(
            row["score"] if score is None else score), 3),
        relevance=round(float(row.get("relevance") or 0.0), 3),
        preview=row["preview"], note_kind=row["note_kind"], project=row["project"],
        links=[HitLink(**link) for link in row.get("links") or [] if link.get("zk_id")],
        link_count=int(row.get("link_count") or 0),
        found_by=[FoundBy(**f) for f in (row.get("found_by") if found_by is None else found_by)
                  or []],
    )


def _found_by(row: dict[str, Any]) -> list[dict[str, Any]]:
    """search_memory's provenance: its channels, the found note written next to it and the one
    it fixes when they lifted it."""
    found: list[dict[str, Any]] = [{"hop": 0, "channel": c} for c in row["channels"]]
    if row.get("session"):
        found.append({"hop": 1, "channel": "session", "relationship": "FOLLOWS",
                      "via": row["session"]})
    if row.get("fixes"):
        found.append({"hop": 1, "channel": "link", "relationship": "FIXES", "via": row["fixes"]})
    return found


class Search:
    def __init__(self, deps: Deps, tuning: Tuning | None = None,
                 deep_tuning: DeepTuning | None = None) -> None:
        self.db = deps.db
        self.embedder = deps.embedder
        self.clock = deps.clock
        self.index_fetch = deps.index_fetch
        self.tuning = tuning or Tuning()
        self.deep_tuning = deep_tuning or DeepTuning()

    def _fetches(self, project: str, want: int, k: int) -> dict[str, int]:
        """Vector candidates for `project`, widened the smaller the project's share of the
        database, or 0 (the exact scan) for a project no larger than that fetch, and full-text
        candidates (the index keeps to the project: see kg_brain/store/share.py)."""
        base = max(self.tuning.fetch, k * 2)
        fetch = self.index_fetch.or_scan(project, want, base)
        lex_base = max(self.tuning.lex_fetch, k * 4)
        return {"fetch": fetch, "lex_fetch": self.index_fetch.text_fetch(project, lex_base)}

    def _lexical(self, params: dict[str, Any], lex_fetch: int) -> dict[str, Any]:
        """The lexical terms of either search, the project's size, how many hits of each term to
        read (every one of the project's) and the lexical score floor: per word (rare words
        are the evidence, no score is) up to OWN_IDF_MAX notes, else the whole query (`lex` of
        `params`), its fetch and Tuning.lex_floor."""
        t, project = self.tuning, params["project"]
        notes = self.index_fetch.size(project)
        if notes > OWN_IDF_MAX:
            return {"lex": whole_query(params["lex"]), "notes": notes, "lex_df": lex_fetch,
                    "lex_floor": t.lex_floor}
        return {"lex": word_queries(params["text"], self._boosts(), project, AS_WRITTEN),
                "notes": notes,
                "lex_df": self.index_fetch.text_fetch(project, max(t.lex_fetch, notes)),
                "lex_floor": math.inf}

    def _boosts(self) -> dict[str, float]:
        t = self.tuning
        return {"content": 1.0, "title": t.lex_title, "keywords": t.lex_keywords,
                "context": t.lex_context}

    def _params(self, text: str, project: str, include_contextual: bool,
                stamp: bool) -> dict[str, Any]:
        """The query's parts for either statement (`text`: the validated query)."""
        words = lucene_query(text)
        terms = identifiers(text)
        project = validate.project(project)
        return {"vector": self.embedder.encode(text), "text": words,
                "lex": in_project(fielded_query(words, self._boosts()), project), "terms": terms,
                "exact": in_project(exact_query(terms), project), "project": project,
                "excluded": _excluded(include_contextual), "before": just_before(text),
                "history": HISTORY.search(text) is not None, "stamp": stamp, "now": self.clock()}

    def search_memory(self, query: str, project: str, top_k: int = 10,
                      include_contextual: bool = False, note_kinds: list[str] | None = None,
                      stamp: bool = True) -> list[Hit]:
        """Hybrid vector + BM25 search (Tuning.fusion) with exact identifiers; one statement.
        `stamp`: count the hits as used (an agent's search), not for automatic reads."""
        k = validate.bounded(top_k, 1, 100, "top_k")
        kinds = [validate.note_kind(x).value for x in note_kinds] if note_kinds else None
        t = self.tuning
        params = self._params(validate.content(query, MAX_QUERY_CHARS, "query"), project,
                              include_contextual, stamp)
        pool = max(t.pool, k)
        fetches = self._fetches(params["project"], pool, k)
        # the entity names' query: deep_search's
        params |= self._lexical(params, fetches["lex_fetch"])
        del params["text"]
        rows = statements.search_memory(
            self.db, **params, **fetches,
            kinds=kinds, pool=pool, fusion=t.fusion, rrf_k=t.rrf_k, w_vec=t.w_vec, w_lex=t.w_lex,
            w_exact=t.w_exact, exact_df=t.exact_df, superseded=t.superseded,
            supersede_share=t.supersede_share, vec_span=t.vec_span,
            session_after=t.session_after, session_before=t.session_before,
            fix_lift=t.fix_lift, named=names(query, params["terms"]), same_n=t.same_n,
            same_cos=t.same_cos, same_reach=t.same_reach, same_subject=t.same_subject,
            same_linked=SAME_LINKED, k=k, floor=t.floor, rare_share=RARE_SHARE,
            rare_words=RARE_WORDS)
        return [_hit(r, found_by=_found_by(r)) for r in rows]

    def deep_search(self, query: str, project: str, hops: int = 2, top_k: int = 10,
                    include_contextual: bool = False, stamp: bool = True) -> list[Hit]:
        """Graph-aware multi-hop retrieval as one Cypher statement (see
        cypher/search/deep_search.cypher); `stamp` as in search_memory."""
        k = validate.bounded(top_k, 1, 100, "top_k")
        hops = validate.bounded(hops, 1, 3, "hops")
        t = self.deep_tuning
        text = validate.content(query, MAX_QUERY_CHARS, "query")
        params = self._params(text, project, include_contextual, stamp)
        pool = max(t.pool, k)
        fetches = self._fetches(params["project"], pool, k)
        lexical = self._lexical(params, fetches["lex_fetch"])
        total = lexical["notes"]
        params |= {"lex": lexical["lex"], "lex_df": lexical["lex_df"]}
        rows = statements.deep_search(
            self.db, **params, **fetches, hops=hops, k=k,
            entity_keys=[e.key for e in extract_entities(text)], total=total,
            ent_cap=min(t.ent_ceiling, max(t.ent_floor, int(total * t.ent_share))), pool=pool,
            named=names(text, params["terms"]), rare_share=RARE_SHARE, rare_words=RARE_WORDS,
            same_linked=SAME_LINKED, near={"gap": NEAR_GAP, "of": NEAR_OF, "head": NEAR_HEAD,
                                           "clause_of": CLAUSE_OF},
            clauses=self.embedder.encode_many(clauses(text)),
            tuning=t.statement_map())
        return [_hit(r) for r in rows]

    def relevant(self, hit: Hit) -> bool:
        """Whether a hit passes the relevance floor on its own: its cosine reaches
        Tuning.floor, or it holds a rare identifier of the query (the exact channel). The
        lexical evidence (RARE_WORDS, Tuning.lex_floor) lets search_memory answer; it is not
        read here, so what is recalled unasked stays close in meaning."""
        return hit.relevance >= self.tuning.floor or any(
            f.channel == "exact" for f in hit.found_by)

    def get_related(self, zk_id: str, depth: int = 1, max_nodes: int = 20) -> Related:
        """The `max_nodes` (1-100) nearest notes up to `depth` (1-3) hops, with the typed links
        among them."""
        depth = validate.bounded(depth, 1, 3, "depth")
        max_nodes = validate.bounded(max_nodes, 1, MAX_RELATED, "max_nodes")
        row = statements.related_notes(self.db, zk_id=validate.zk_id(zk_id), depth=depth,
                                       max_nodes=max_nodes)
        if row is None:
            raise NotFound(f"There is no note with id {zk_id}; take an id from a search.")
        return Related(zk_id=row["root"], project=row["project"],
                       entities=[EntityView(**e) for e in row["entities"]],
                       nodes=[RelatedNode(**n) for n in row["nodes"]],
                       edges=[RelatedEdge(**e) for e in row["edges"]], total_nodes=row["total"])
