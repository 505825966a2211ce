"""The read side: hybrid search, deep (iterative) search, neighbourhoods, access stamping.

Every search embeds the query (and each clause of a question asking several things) in Python
and sends one Cypher statement: the vector index, the full-text index, the later hops (query
vectors blended inside Cypher), the neighbour expansion all run in that statement, a read
transaction; the hits' access stamp is written just
after, off the caller's path (kg_brain/domain/access.py). Once a minute per project and process
a count of the project's notes comes first (kg_brain/store/share.py). The baselines the searches
are measured against live with the benchmarks (bench/baselines.py).
"""

from __future__ import annotations

import math
from typing import Any

from pydantic import BaseModel, Field

from kg_brain.base import validate
from kg_brain.base.errors import NotFound
from kg_brain.base.vocab import HANDOFF_KINDS
from kg_brain.domain.deps import Deps
from kg_brain.domain.query_text import (
    by_code,
    codes,
    exact_query,
    fielded_query,
    identifier_pattern,
    identifiers,
    in_project,
    inside_query,
    lucene_query,
    names,
    shares,
    whole_query,
    word_queries,
)
from kg_brain.domain.question import (
    NAME_GLUE,
    VALUE_SPLIT,
    VALUE_UNITS,
    asks_for_many,
    clauses,
    earlier,
    glued,
    numbers,
    subject_words,
    value_shapes,
)
from kg_brain.domain.ranking import (
    AS_WRITTEN,
    BRIDGE_AT,
    BRIDGE_LEAST,
    BRIDGE_RARITY,
    CLAUSE_OF,
    DEEP_HOPS,
    DIVERSE_FROM,
    DIVERSE_HEAD,
    DIVERSE_LAM,
    DIVERSE_MANY_LAM,
    DIVERSE_MANY_MIX,
    DIVERSE_MIX,
    DIVERSE_OF,
    KNOWN_FLOOR,
    LACKED_STEP,
    LINKED_FAR,
    NEAR_GAP,
    NEAR_HEAD,
    NEAR_OF,
    NEAR_REACH,
    OWN_IDF_MAX,
    RARE_SHARE,
    RARE_WORDS,
    SAME_LINKED,
    SENTENCE_REACH,
    SENTENCE_WHOLE,
    UNKNOWN_MOST,
    UNKNOWN_STEP,
    DeepTuning,
    Tuning,
)
from kg_brain.enrichment.llm.entities import extract_entities
from kg_brain.shapes.models import EntityView, FoundBy, Hit, HitLink
from kg_brain.store import search as statements
from kg_brain.store.search import Asked, DeepQuestion

MAX_QUERY_CHARS = 4_000
MAX_RELATED = 100


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
                 deep_tuning: DeepTuning | None = None,
                 word_floor: tuple[float, float, float] = (KNOWN_FLOOR, UNKNOWN_STEP,
                                                           LACKED_STEP)) -> None:
        """`word_floor`: both searches' relevance floor in a project searched word by word,
        for a hit holding every content word of the query, what each one no note holds adds
        and what each other one the hit lacks adds."""
        self.db = deps.db
        self.embedder = deps.embedder
        self.clock = deps.clock
        self.index_fetch = deps.index_fetch
        self.access = deps.access
        self.tuning = tuning or Tuning()
        self.deep_tuning = deep_tuning or DeepTuning()
        self.word_floor = word_floor

    def _fetches(self, project: str, want: int, k: int) -> dict[str, int]:
        """Vector candidates for `project`, widened the smaller the project's share of the
        database, or 0 (the exact scan) for a project no larger than that fetch, whether the
        scan follows a short index answer, and full-text candidates (the index keeps to the
        project: see kg_brain/store/share.py)."""
        base = max(self.tuning.fetch, k * 2)
        fetch = self.index_fetch.or_scan(project, want, base)
        lex_base = max(self.tuning.lex_fetch, k * 4)
        return {"fetch": fetch, "rescan": self.index_fetch.rescans(project),
                "lex_fetch": self.index_fetch.text_fetch(project, lex_base)}

    def _lexical(self, params: dict[str, Any], asked: Asked, lex_fetch: int,
                 whole_floor: float) -> dict[str, Any]:
        """The lexical terms of either search (set in `asked`), the project's size, how many
        hits of each term to read (every one of the project's) and the relevance floor both
        searches read (cypher/fragments/relevance_floor.cypher): per word (rare words are the
        evidence, no score is; the floor `word_floor`, raised per unknown word) up to
        OWN_IDF_MAX notes, else the whole query (`lex` of `asked`), its fetch,
        Tuning.lex_floor and `whole_floor` (Tuning.floor, DeepTuning.floor)."""
        t, project = self.tuning, asked["project"]
        notes = self.index_fetch.size(project)
        floor = {"unknown_step": self.word_floor[1], "unknown_most": UNKNOWN_MOST,
                 "lacked_step": self.word_floor[2], "rare_share": RARE_SHARE,
                 "rare_words": RARE_WORDS}
        if notes > OWN_IDF_MAX:
            asked["lex"] = whole_query(asked["lex"])
            return floor | {"notes": notes, "lex_df": lex_fetch, "lex_floor": t.lex_floor,
                            "floor": whole_floor}
        asked["lex"] = word_queries(params["text"], self._boosts(), project, AS_WRITTEN)
        return floor | {"notes": notes,
                        "lex_df": self.index_fetch.text_fetch(project, max(t.lex_fetch, notes)),
                        "lex_floor": math.inf, "floor": self.word_floor[0]}

    def _boosts(self) -> dict[str, float]:
        t = self.tuning
        return {"content": 1.0, "title": t.lex_title, "keywords": t.lex_keywords,
                "context": t.lex_context}

    def _params(self, text: str, project: str,
                include_contextual: bool) -> tuple[dict[str, Any], Asked]:
        """The query's parts for either statement (`text`: the validated query): the plain
        parameters (`text`: the words' Lucene query, deep_search's alone), and what changes
        with the question, sent as one map (its `lex` as _lexical sets it)."""
        words = lucene_query(text)
        terms = identifiers(text)
        project = validate.project(project)
        asks = earlier(text)
        asked: Asked = {"project": project,
                        "lex": in_project(fielded_query(words, self._boosts()), project),
                        "terms": [identifier_pattern(t) for t in terms],
                        "shares": shares(terms),
                        "codes": [identifier_pattern(t) for t in codes(terms)],
                        "exact": in_project(exact_query(terms), project),
                        "inside": in_project(inside_query(terms), project),
                        "by_code": by_code(text, terms),
                        "excluded": _excluded(include_contextual), "numbers": numbers(text),
                        "shapes": [] if asks is not None else value_shapes(text),
                        "subject": subject_words(text), "glued": glued(text),
                        "units": VALUE_UNITS, "split": list(VALUE_SPLIT), "glue": list(NAME_GLUE),
                        "clauses": self.embedder.encode_many(clauses(text))}
        return {"vector": self.embedder.encode(text), "text": words,
                "history": asks is not None, "before": asks == "before",
                "named": names(text, terms)}, asked

    def search_memory(self, query: str, project: str, top_k: int = 10,
                      include_contextual: bool = False, note_kinds: list[str] | None = None,
                      stamp: bool = True) -> list[Hit]:
        """Hybrid vector + BM25 search (Tuning.fusion) with exact identifiers, a hit per clause
        of a question asking several things among the first (CLAUSE_OF); one statement.
        `stamp`: count the hits as used (an agent's search), not for automatic reads; the
        stamp is written within STAMP_INTERVAL_S (kg_brain/domain/access.py)."""
        k = validate.bounded(top_k, 1, 100, "top_k")
        kinds = [validate.note_kind(x).value for x in note_kinds] if note_kinds else None
        t = self.tuning
        params, asked = self._params(validate.content(query, MAX_QUERY_CHARS, "query"), project,
                                     include_contextual)
        pool = max(t.pool, k)
        fetches = self._fetches(asked["project"], pool, k)
        params |= self._lexical(params, asked, fetches["lex_fetch"], t.floor)
        del params["text"]  # the entity names' query: deep_search's
        rows = statements.search_memory(
            self.db, **params, **fetches, question={**asked, "kinds": kinds}, pool=pool,
            fusion=t.fusion, rrf_k=t.rrf_k, w_vec=t.w_vec, w_lex=t.w_lex,
            w_exact=t.w_exact, exact_df=t.exact_df, superseded=t.superseded,
            supersede_share=t.supersede_share, vec_span=t.vec_span,
            session_after=t.session_after, session_before=t.session_before,
            fix_lift=t.fix_lift, same_n=t.same_n,
            same_cos=t.same_cos, same_reach=t.same_reach, same_subject=t.same_subject,
            same_linked=SAME_LINKED, linked_far=LINKED_FAR, sentences=_sentences(pool),
            clause_of=CLAUSE_OF, clause_head=NEAR_HEAD, k=k)
        self._stamp(stamp, rows)
        return [_hit(r, found_by=_found_by(r)) for r in rows]

    def deep_search(self, query: str, project: str, hops: int = DEEP_HOPS, top_k: int = 10,
                    include_contextual: bool = False, stamp: bool = True) -> list[Hit]:
        """Graph-aware multi-hop retrieval as one Cypher statement (see
        cypher/search/deep_search.cypher); `stamp` as in search_memory."""
        k = validate.bounded(top_k, 1, 100, "top_k")
        hops = validate.bounded(hops, 1, 3, "hops")
        t = self.deep_tuning
        text = validate.content(query, MAX_QUERY_CHARS, "query")
        params, asked = self._params(text, project, include_contextual)
        many = asks_for_many(text)
        pool = max(t.pool, k)
        fetches = self._fetches(asked["project"], pool, k)
        lexical = self._lexical(params, asked, fetches["lex_fetch"], t.floor)
        total = lexical.pop("notes")
        params |= lexical
        question: DeepQuestion = {
            **asked, "text": params.pop("text"),
            "entity_keys": [e.key for e in extract_entities(text)]}
        rows = statements.deep_search(
            self.db, **params, **fetches, question=question, hops=hops, k=k, total=total,
            ent_cap=min(t.ent_ceiling, max(t.ent_floor, int(total * t.ent_share))), pool=pool,
            same_linked=SAME_LINKED, linked_far=LINKED_FAR,
            near={"gap": NEAR_GAP, "of": NEAR_OF, "head": NEAR_HEAD, "reach": NEAR_REACH,
                  "clause_of": CLAUSE_OF, "bridge_at": BRIDGE_AT,
                  "bridge_rarity": BRIDGE_RARITY, "bridge_least": BRIDGE_LEAST,
                  "diverse_from": DIVERSE_FROM, "diverse_head": DIVERSE_HEAD,
                  "diverse_of": DIVERSE_OF,
                  "diverse_mix": DIVERSE_MANY_MIX if many else DIVERSE_MIX,
                  "diverse_lam": DIVERSE_MANY_LAM if many else DIVERSE_LAM},
            tuning=t.statement_map())
        self._stamp(stamp, rows)
        return [_hit(r) for r in rows]

    def _stamp(self, stamp: bool, rows: list[statements.SearchHit] | list[statements.DeepHit]
               ) -> None:
        if stamp and rows:
            self.access.add([r["zk_id"] for r in rows], self.clock())

    def relevant(self, hit: Hit) -> bool:
        """Whether a hit passes the relevance floor on its own: its relevance (search_memory's:
        with its best sentence's cosine) reaches Tuning.floor, or it holds a rare identifier of
        the query (the exact channel). The
        lexical evidence (RARE_WORDS, Tuning.lex_floor) lets either search answer; it is not
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


def _sentences(pool: int) -> dict[str, float]:
    """The vector channel's re-scoring by sentences (SENTENCE_WHOLE), for a pool of `pool`."""
    return {"whole": SENTENCE_WHOLE, "reach": max(SENTENCE_REACH, pool)}
