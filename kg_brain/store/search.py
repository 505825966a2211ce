"""Retrieval statements: hybrid search, deep search, neighbourhoods, access stamps."""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypedDict

from kg_brain.store.statement import On, read, write

Vector = list[float]


class LexTerm(TypedDict):
    """One word of a query in the boosted fields of a note index (`index`: FULLTEXT_INDEX or
    WORD_INDEX): its Lucene query, kept to the project; or (`whole`) the whole query, scored as
    the index scores it. Its scores weigh `share`; `rare`: its hits count as rare words;
    `content`: a content word of the query, counted when no note of the project holds it."""

    query: str
    whole: bool
    index: str
    share: float
    rare: bool
    content: bool


class Asked(TypedDict):
    """What either search asks that changes with the question, sent as one map parameter
    (`question`): Neo4j keys a cached plan on each parameter's type and, for a text or a list,
    the class of its size (up to 10, 100, 1,000 characters or items), never on what a map holds,
    so one plan serves every question in every project. `project`: the project read; `lex`: the
    lexical terms; `terms`: the identifiers, each as the pattern of a text holding it
    (query_text.identifier_pattern), `shares` each one's share of the exact signal and `codes`
    the patterns of those saying what the query names (query_text.shares, query_text.codes);
    `exact`: their Lucene phrase query ('' = none); `inside`:
    the word index's query for those a word of the note index may hold inside it
    (query_text.inside_query); `by_code`: the query names what it asks for by a code
    (query_text.by_code); `excluded`: note kinds left out; `numbers`: the numbers the question
    names (question.numbers); `shapes`: the shapes of value it asks for, none asked for an
    earlier value (question.value_shapes); `subject`: its subject words
    (question.subject_words); `glued`: its text as names are looked for in it
    (question.glued); `units`, `split`, `glue`: how the statement reads a note's values and
    names (question.VALUE_UNITS, VALUE_SPLIT, NAME_GLUE); `clauses`: a vector per clause of a
    question asking several things ([] for one; question.clauses)."""

    project: str
    lex: list[LexTerm]
    terms: list[str]
    shares: list[float]
    codes: list[str]
    exact: str
    inside: str
    by_code: bool
    excluded: list[str]
    numbers: list[str]
    shapes: list[str]
    subject: list[str]
    glued: str
    units: dict[str, str]
    split: list[str]
    glue: list[str]
    clauses: list[Vector]


class Question(Asked):
    """search_memory's: `kinds`, the note kinds kept (None: every kind)."""

    kinds: list[str] | None


class DeepQuestion(Asked):
    """deep_search's: `text`, the Lucene query of the question's words for entity names;
    `entity_keys`, its entities' keys."""

    text: str
    entity_keys: list[str]


class SearchHit(TypedDict):
    zk_id: str
    title: str
    score: float
    relevance: float
    preview: str
    note_kind: str
    project: str
    channels: list[str]
    fixes: str | None
    session: str | None
    links: list[dict[str, Any]]
    link_count: int


class DeepHit(TypedDict):
    zk_id: str
    title: str
    score: float
    relevance: float
    preview: str
    note_kind: str
    project: str
    found_by: list[dict[str, Any]]
    links: list[dict[str, Any]]
    link_count: int


class Neighbourhood(TypedDict):
    root: str
    project: str
    entities: list[dict[str, Any]]
    nodes: list[dict[str, Any]]
    total: int
    edges: list[dict[str, Any]]


class AccessStamp(TypedDict):
    zk_id: str
    uses: int
    at: datetime


@read("search/search_memory.cypher")
def search_memory(on: On, *, vector: Vector, question: Question, notes: int, lex_df: int,
                  fetch: int, rescan: bool, lex_fetch: int, pool: int,
                  fusion: str,
                  rrf_k: float, w_vec: float, w_lex: float, w_exact: float, exact_df: int,
                  superseded: float, supersede_share: float, vec_span: float,
                  session_after: float, session_before: float, fix_lift: float, history: bool,
                  before: bool, named: bool, same_n: int, same_cos: float, same_reach: float,
                  same_subject: int, same_linked: float, linked_far: int,
                  sentences: dict[str, float], clause_of: int, clause_head: int, k: int,
                  floor: float,
                  unknown_step: float, unknown_most: int, lacked_step: float, lex_floor: float,
                  rare_share: float, rare_words: int) -> list[SearchHit]:
    """Vector + full-text fused (linear or reciprocal rank) with the exact-identifier signal,
    then a hit close to each clause of a question asking several things (`clauses`)."""


@read("search/deep_search.cypher")
def deep_search(on: On, *, vector: Vector, question: DeepQuestion, lex_df: int, hops: int,
                fetch: int, rescan: bool, lex_fetch: int, pool: int,
                total: int, ent_cap: int, k: int, named: bool, history: bool, before: bool,
                floor: float, unknown_step: float, unknown_most: int,
                lacked_step: float, lex_floor: float, rare_share: float, rare_words: int,
                same_linked: float,
                linked_far: int, near: dict[str, float],
                tuning: dict[str, float]) -> list[DeepHit]:
    """Vector, full-text, exact-identifier and entity channels fused, a blended hop, then
    entity bridges and typed links, the hits close to the query first (`near`), then a hit
    close to each clause of a question asking several things (`clauses`), then the first
    hit's bridge (`near`: the note sharing its rarest entities). `tuning`: the statement's
    constants, read as `$tuning.alpha` (its header names each one)."""


@write("search/stamp_access.cypher")
def stamp_access(on: On, *, stamps: list[AccessStamp]) -> None:
    """Each note's access count raised by its uses, its last access set to `at`."""


@read("search/related_notes.cypher")
def related_notes(on: On, *, zk_id: str, depth: int, max_nodes: int) -> Neighbourhood | None:
    """A note's `max_nodes` nearest neighbours up to `depth` hops and the links among them;
    None when the note is missing."""
