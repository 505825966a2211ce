"""Statements only benchmarks and their checks use (stress, faults, scale, projects): the files
of `cypher/bench/`, which the wheel leaves out as it leaves out this package."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, TypedDict

from kg_brain.store.statement import On, read, write

if TYPE_CHECKING:  # rows name the driver's type; importing it loads the driver
    from neo4j.time import DateTime

Vector = list[float]


class NoteId(TypedDict):
    zk_id: str


class Deleted(TypedDict):
    deleted: int


class NoteVector(TypedDict):
    zk_id: str
    title: str
    content: str
    note_kind: str
    embedding: list[float]


class VectorHit(TypedDict):
    zk_id: str
    title: str
    score: float
    preview: str
    note_kind: str


class Neighbour(TypedDict):
    via: str
    zk_id: str
    title: str
    relationship: str
    score: float


class StampedHit(TypedDict):
    zk_id: str
    title: str
    preview: str
    note_kind: str
    project: str
    links: list[dict[str, Any]]


class Footprint(TypedDict):
    notes: int
    fleeting: int
    archived: int
    links: int
    revisions: int
    jobs: int
    accesses: int | None
    updated: DateTime | None


class StoredText(TypedDict):
    kind: str
    props: dict[str, Any]


class LoadNote(TypedDict):
    zk_id: str
    content: str


class RawHit(TypedDict):
    zk_id: str
    score: float


class StressJob(TypedDict):
    key: str
    zk_id: str
    state: str
    attempts: int


class LinkCounts(TypedDict):
    links: int
    foreign_or_partial: int


class MissingLink(TypedDict):
    src: str
    dst: str
    type: str


class NoteCounts(TypedDict):
    notes: int
    distinct_ids: int
    without_embedding: int


class NoteRevisions(TypedDict):
    zk_id: str
    versions: list[int]
    causes: list[str]


@write("bench/copy_notes.cypher")
def copy_notes(on: On, *, rows: list[dict[str, Any]], project: str) -> list[NoteId]:
    """Copies of notes (embeddings included) under fresh ids in another project."""


@write("bench/delete_bench_project.cypher")
def delete_bench_project(on: On, *, project: str, batch: int) -> Deleted:
    """Up to `batch` notes of a bench-* project removed; refuses any other project."""


@write("bench/delete_bench_plugin_records.cypher")
def delete_bench_plugin_records(on: On, *, project: str) -> Deleted:
    """A bench-* project's OpenCode plugin records."""


@write("bench/delete_bench_jobs.cypher")
def delete_bench_jobs(on: On, *, project: str) -> Deleted:
    """A bench-* project's queue jobs, done or not."""


@read("bench/project_footprint.cypher")
def project_footprint(on: On, *, project: str) -> Footprint:
    """Everything a write to the project can change, summed."""


@read("bench/project_text.cypher")
def project_text(on: On, *, project: str) -> list[StoredText]:
    """Every stored property of the project's notes, revisions, links and tombstones."""


@read("bench/project_vectors.cypher")
def project_vectors(on: On, *, project: str) -> list[NoteVector]:
    """The project's permanent notes with their text and embeddings."""


@read("bench/raw_vector_query.cypher")
def raw_vector_query(on: On, *, index: str, k: int, vector: Vector) -> list[RawHit]:
    """One raw vector index query, the yardstick for search latencies."""


@read("bench/raw_fulltext_query.cypher")
def raw_fulltext_query(on: On, *, lex: str, k: int) -> list[RawHit]:
    """One raw full-text index query, the lexical yardstick for search latencies."""


class GraphCounts(TypedDict):
    notes: int
    typed_links: int
    follows: int
    mentions: int
    entities: int


@read("bench/graph_counts.cypher")
def graph_counts(on: On, *, prefix: str) -> GraphCounts:
    """Notes, typed links, FOLLOWS, MENTIONS and entities of the projects under a prefix."""


@read("bench/vector_notes.cypher")
def vector_notes(on: On, *, vector: Vector, project: str, excluded: list[str], fetch: int,
                 rescan: bool, k: int) -> list[VectorHit]:
    """Plain vector search over a project's live permanent notes."""


@read("bench/note_neighbours.cypher")
def note_neighbours(on: On, *, zk_ids: list[str], vector: Vector, project: str,
                    excluded: list[str], limit: int) -> list[Neighbour]:
    """Live neighbours of some notes over typed links, scored against a query vector."""


@write("bench/stamp_hits.cypher")
def stamp_hits(on: On, *, zk_ids: list[str], now: datetime) -> list[StampedHit]:
    """Access stamped on these notes; their hit fields in the order given."""


@read("bench/stress_jobs.cypher")
def stress_jobs(on: On, *, project: str, kind: str) -> list[StressJob]:
    """Every job of one kind in a project."""


@read("bench/stress_link_counts.cypher")
def stress_link_counts(on: On, *, project: str) -> LinkCounts:
    """Links leaving the project's notes, and those reaching outside or half-written notes."""


@read("bench/stress_missing_links.cypher")
def stress_missing_links(on: On, *, rows: list[dict[str, Any]]) -> list[MissingLink]:
    """The reported links that do not exist."""


@read("bench/stress_note_counts.cypher")
def stress_note_counts(on: On, *, project: str) -> NoteCounts:
    """Notes, distinct ids and notes without a full embedding."""


@read("bench/stress_revisions.cypher")
def stress_revisions(on: On, *, project: str) -> list[NoteRevisions]:
    """Kept revisions per note."""


class NoteDegree(TypedDict):
    zk_id: str
    similarity: int
    typed: int
    mentions: int


class EntityStats(TypedDict):
    entities: int
    top: list[dict[str, Any]]


@read("bench/note_degrees.cypher")
def note_degrees(on: On, *, project: str) -> list[NoteDegree]:
    """Similarity and typed link degree and entity mentions of every note of a project."""


@read("bench/entity_stats.cypher")
def entity_stats(on: On, *, project: str) -> EntityStats:
    """How many entities a project has, and its most mentioned ones."""


@write("bench/delete_bench_entities.cypher")
def delete_bench_entities(on: On, *, project: str) -> Deleted:
    """A benchmark project's entities, after its notes."""


@read("bench/load_notes.cypher")
def load_notes(on: On, *, project: str) -> list[LoadNote]:
    """Every note of a project: id and text."""


class RankingNote(TypedDict):
    zk_id: str
    title: str
    content: str
    note_kind: str
    created: float
    stated: float
    embedding: list[float]
    follows: list[str]
    fixes: list[str]
    fix_weights: list[float]
    supersedes: list[str]
    asserted: list[str]
    entities: list[str]
    entity_notes: list[int]
    entity_kinds: list[str]
    sentences: list[list[float]]


@read("bench/ranking_notes.cypher")
def ranking_notes(on: On, *, project: str) -> list[RankingNote]:
    """A project's live notes with the links and entities search_memory's ranking reads."""


@read("bench/ranking_lexical.cypher")
def ranking_lexical(on: On, *, index: str, lex: str, limit: int,
                    project: str) -> list[RawHit]:
    """A note index's BM25 scores of a project's notes (live or not) for one Lucene query."""


class LexicalKept(TypedDict):
    kept: int
    unknown: int
    known: int


class LexicalHits(TypedDict):
    hits: int


@read("bench/lexical_channel.cypher")
def lexical_channel(on: On, *, question: dict[str, Any], notes: int, lex_df: int,
                    rare_share: float, project: str, pool: int) -> LexicalKept:
    """search_memory's lexical channel alone, with its parameters (`question`: its lex,
    excluded and kinds)."""


@read("bench/lexical_index_hits.cypher")
def lexical_index_hits(on: On, *, lex: list[dict[str, Any]], limit: int) -> LexicalHits:
    """The lexical channel's full-text queries alone, their hits counted."""


@read("bench/lexical_project_hits.cypher")
def lexical_project_hits(on: On, *, lex: list[dict[str, Any]], lex_df: int,
                         project: str) -> LexicalHits:
    """The lexical channel's full-text queries, each hit's project read, the project's kept."""
