"""Notes: ids, batched creation, reads, rewrites with revisions, nearest neighbours."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar

from kg_brain.base.errors import Conflict
from kg_brain.store.db import Tx
from kg_brain.store.entities import mention_new, mentioned_by
from kg_brain.store.statement import On, read, write

if TYPE_CHECKING:  # rows name the driver's type; importing it loads the driver
    from neo4j.time import DateTime

T = TypeVar("T")
Vector = list[float]


class Floats(list[float]):
    """A vector as a statement's parameter, its repr its length: the driver formats every
    statement's parameters for its debug log whether or not that log is on, and the repr of
    384 floats costs twice what packing them does (a bulk import's batch of 1,024 notes: about
    0.18 s of CPU)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"<{len(self)} floats>"


def new_zk_id() -> str:
    return f"ZK-{secrets.token_hex(4).upper()}"


def with_fresh_ids(write_rows: Callable[[], T], rows: list[dict[str, Any]], tries: int = 3) -> T:
    """ZK ids are 32 random bits (the seed's format), so a collision happens about once per
    100k notes; the unique constraint refuses it and the write is retried with new ids.
    `write_rows` must read the ids from `rows` when it runs."""
    for attempt in range(tries):
        try:
            return write_rows()
        except Conflict:
            if attempt == tries - 1:
                raise
            for row in rows:
                row["zk_id"] = new_zk_id()
    raise AssertionError("unreachable")


class NoteId(TypedDict):
    zk_id: str


class NoteWithLinks(TypedDict):
    note: dict[str, Any]
    links: list[dict[str, Any]]
    entities: list[dict[str, Any]]


class AddedNote(TypedDict):
    changed: list[str]
    note: dict[str, Any]
    links: list[dict[str, Any]]
    entities: list[dict[str, Any]]


class EvolutionTarget(TypedDict):
    title: str | None
    content: str
    context: str | None
    note_kind: str
    target: str
    target_title: str | None
    target_content: str
    target_context: str | None
    target_kind: str
    target_keywords: list[str] | None
    target_tags: list[str] | None
    link_type: str


class RevisionRow(TypedDict):
    version: int
    title: str | None
    content: str
    context: str | None
    keywords: list[str] | None
    tags: list[str] | None
    memory_type: str | None
    created: DateTime
    cause: str


class NearestNote(TypedDict):
    zk_id: str
    title: str | None
    content: str
    context: str | None
    note_kind: str
    memory_type: str
    similarity: float
    entities: list[str]


class NoteForUpdate(TypedDict):
    zk_id: str
    project: str
    note_kind: str
    memory_type: str
    title: str | None
    content: str
    context: str | None
    pinned: bool | None
    failure_signature: str | None


class ProjectShare(TypedDict):
    project_notes: int
    all_notes: int


class Rewritten(TypedDict):
    zk_id: str
    version: int


@write("notes/create_notes.cypher", "zk_id")
def create_notes(on: On, *, rows: list[dict[str, Any]]) -> list[NoteId]:
    """Every property of each note (kg_brain.domain.memory.text.note_row), embedding included;
    `entities` is not a property (insert_notes writes them as MENTIONS)."""


def insert_notes(tx: Tx, rows: list[dict[str, Any]], now: datetime) -> list[str]:
    """New notes and the entities they mention (row["entities"]), in the caller's transaction."""
    ids = [r["zk_id"] for r in create_notes(tx, rows=rows)]
    entities = mentioned_by(rows)
    if entities:
        mention_new(tx, entities=entities, now=now)
    return ids


class NoteAdd(TypedDict):
    """What add_note writes that changes in kind or size from one note to the next, sent as one
    map parameter (`add`): Neo4j keys a cached plan on each parameter's type and the class of
    a list's or a text's size, never on what a map holds, so one plan serves every note, however
    many links, RELATES_TO among them and jobs it has and whatever its session. `similar`: the
    linked notes whose degree bound is kept; `session_id`: None for no place in a session's
    order."""

    links: list[dict[str, Any]]
    similar: list[str]
    jobs: list[dict[str, str]]
    session_id: str | None


@write("notes/add_note.cypher", "changed")
def add_note(on: On, *, row: dict[str, Any], add: NoteAdd, keep: int, since: datetime,
             reason: str, mirror: bool, now: datetime) -> AddedNote:
    """A new note's whole write (mentions, links, degree bound, evolution job, session order,
    the mirror's jobs when `mirror`), answered as get_notes reads it."""


@read("notes/get_notes.cypher")
def get_notes(on: On, *, zk_ids: list[str]) -> list[NoteWithLinks]:
    """Full notes with their links, in the order asked; missing ids are left out."""


@read("notes/note_for_update.cypher")
def note_for_update(on: On, *, zk_id: str) -> NoteForUpdate | None:
    """What a rewrite needs to know about one note."""


@read("notes/nearest_notes.cypher")
def nearest_notes(on: On, *, vector: Vector, project: str, memory_types: list[str], fetch: int,
                  rescan: bool, k: int, exclude: list[str]) -> list[NearestNote]:
    """Dedup and link candidates: the index, or an exact scan of a small project."""


@read("notes/project_share.cypher")
def project_share(on: On, *, project: str) -> ProjectShare:
    """The project's notes next to the whole database's (kg_brain/store/share.py)."""


@write("notes/reinforce_note.cypher", "zk_id")
def reinforce_note(on: On, *, zk_id: str, now: datetime) -> list[NoteId]:
    """A near-duplicate write counts as a use of the note it matched."""


@write("notes/rewrite_note.cypher", "zk_id")
def rewrite_note(on: On, *, zk_id: str, fields: dict[str, Any], vector: Vector | None,
                 sentences: list[Vector] | None, now: datetime, cause: str) -> Rewritten | None:
    """New fields, vector and sentences' vectors (None keeps them); the previous version is
    kept as a Revision."""


@read("notes/list_revisions.cypher")
def list_revisions(on: On, *, zk_id: str) -> list[RevisionRow]:
    """Kept versions, newest first."""


@read("notes/evolution_targets.cypher")
def evolution_targets(on: On, *, zk_id: str, min_weight: float) -> list[EvolutionTarget]:
    """The new note's text and each neighbour it linked to strongly enough to refine."""
