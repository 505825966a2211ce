"""Curation by hand: forgetting notes behind a tombstone (undo, purge, erase), browsing them,
removing links, and a project's overview."""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypedDict

from neo4j.time import DateTime

from kg_brain.store.notes import NoteId
from kg_brain.store.statement import On, read, write


class Forgot(TypedDict):
    zk_id: str
    project: str
    changed: list[str]


class Tombstone(TypedDict):
    zk_id: str
    project: str
    forgotten_at: DateTime
    reason: str | None
    purge_after: DateTime | None
    title: str | None
    content: str | None
    context: str | None
    memory_type: str | None


class ContextCopy(TypedDict):
    zk_id: str
    version: int | None
    title: str | None
    content: str | None
    context: str | None


class Unforgot(TypedDict):
    zk_id: str
    links: int
    changed: list[str]


class Erased(TypedDict):
    zk_id: str
    revisions: int


class Purged(TypedDict):
    zk_id: str


class NoteListing(TypedDict):
    zk_id: str
    title: str
    preview: str
    note_kind: str
    memory_type: str
    pinned: bool
    tags: list[str]
    created: DateTime | None
    updated: DateTime | None
    k: int


class Unlinked(TypedDict):
    src: str
    dst: str
    origin: str


class Overview(TypedDict):
    by_type: list[dict[str, Any]]
    by_kind: list[dict[str, Any]]
    entities: list[dict[str, Any]]
    pinned: list[dict[str, Any]]
    thread: dict[str, Any] | None
    forgotten: int


@write("curation/forget_notes.cypher", "changed")
def forget_notes(on: On, *, zk_ids: list[str], reason: str, now: datetime,
                 purge_after: datetime) -> list[Forgot]:
    """Notes become tombstones: out of every view, embedding deleted, links dropped."""


@read("curation/forgotten_notes.cypher")
def forgotten_notes(on: On, *, zk_ids: list[str]) -> list[Tombstone]:
    """Tombstones by id, with their text until the purge."""


@write("curation/restore_forgotten.cypher", "changed")
def restore_forgotten(on: On, *, rows: list[dict[str, Any]], now: datetime) -> list[Unforgot]:
    """Tombstones within the window become notes again, re-embedded, with their links."""


@read("curation/contexts_naming.cypher")
def contexts_naming(on: On, *, project: str, needles: list[str]) -> list[ContextCopy]:
    """Notes and revisions whose context quotes a title."""


@write("curation/set_contexts.cypher", "zk_id")
def set_contexts(on: On, *, rows: list[dict[str, Any]]) -> list[NoteId]:
    """Contexts of notes (re-embedded) and revisions replaced, no revision kept."""


@write("curation/erase_forgotten.cypher")
def erase_forgotten(on: On, *, zk_ids: list[str]) -> list[Erased]:
    """Tombstones and their revisions deleted outright."""


@write("curation/purge_forgotten.cypher")
def purge_forgotten(on: On, *, now: datetime, project: str | None,
                    limit: int) -> list[Purged]:
    """Text, kept links and revisions of tombstones whose window closed, deleted."""


@read("curation/list_notes.cypher")
def list_notes(on: On, *, project: str, memory_types: list[str], note_kinds: list[str] | None,
               tags: list[str] | None, pinned: bool | None, since: datetime | None,
               until: datetime | None, entity: str | None, order: str, after_k: int | None,
               after_id: str | None, limit: int) -> list[NoteListing]:
    """One keyset page of previews."""


@write("curation/unlink_notes.cypher", "src", "dst")
def unlink_notes(on: On, *, src: str, dst: str, type: str) -> list[Unlinked]:
    """The link of one type from src to dst, removed."""


@read("curation/project_overview.cypher")
def project_overview(on: On, *, project: str, limit: int) -> Overview:
    """Counts, top entities, pinned notes and the open thread."""
