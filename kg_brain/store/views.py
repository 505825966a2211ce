"""Statements of the views: the Obsidian mirror queue, backups, MEMORY.md, schema checks."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, TypedDict

from kg_brain.store.statement import On, read, write

if TYPE_CHECKING:  # rows name the driver's type; importing it loads the driver
    from neo4j.time import DateTime


class JobKey(TypedDict):
    key: str


class FinishedJob(TypedDict):
    key: str
    state: str


class ExportedNote(TypedDict):
    zk_id: str
    props: list[list[Any]]
    embedding: list[float] | None
    sentences: list[list[float]]


class ExportedLink(TypedDict):
    src: str
    type: str
    dst: str
    props: list[list[Any]]


class ExportedRevision(TypedDict):
    note: str
    props: list[list[Any]]


class NoteId(TypedDict):
    zk_id: str


class RestoredLink(TypedDict):
    src: str
    dst: str
    type: str


class RestoredRevision(TypedDict):
    note: str
    version: int


class MemoryMdNote(TypedDict):
    zk_id: str
    title: str | None
    content: str
    note_kind: str
    pinned: bool
    access_count: int
    anchor: DateTime
    inbound: int


class NonconformingNote(TypedDict):
    zk_id: str
    project: str | None
    memory_type: str | None
    note_kind: str | None


class SchemaViolation(TypedDict):
    zk_id: str
    project: str | None
    problems: list[str]


@write("views/enqueue_mirror_jobs.cypher")
def enqueue_mirror_jobs(on: On, *, zk_ids: list[str], now: datetime) -> list[JobKey]:
    """One durable mirror job per note, re-armed on every change."""


@write("views/finish_mirror_job.cypher")
def finish_mirror_job(on: On, *, key: str, now: datetime, state: str, retry_at: datetime | None,
                      error: str | None) -> FinishedJob | None:
    """Done, failed or pending again; stays pending when the note changed after the claim."""


@read("views/list_note_ids.cypher")
def list_note_ids(on: On, *, project: str | None) -> list[NoteId]:
    """Every note id (of one project), for a full re-mirror."""


@read("views/export_notes.cypher")
def export_notes(on: On, *, after: str, projects: list[str] | None, zk_ids: list[str] | None,
                 limit: int) -> list[ExportedNote]:
    """One keyset page of notes, every property typed."""


@read("views/export_links.cypher")
def export_links(on: On, *, zk_ids: list[str], projects: list[str] | None) -> list[ExportedLink]:
    """The links of a page of exported notes."""


@read("views/export_revisions.cypher")
def export_revisions(on: On, *, zk_ids: list[str]) -> list[ExportedRevision]:
    """The kept versions of a page of exported notes."""


@write("views/restore_notes.cypher", "zk_id")
def restore_notes(on: On, *, rows: list[dict[str, Any]]) -> list[NoteId]:
    """Notes from a backup, replaced property by property."""


@write("views/restore_links.cypher", "src", "dst")
def restore_links(on: On, *, rows: list[dict[str, Any]]) -> list[RestoredLink]:
    """Links from a backup, overwritten rather than doubled."""


@write("views/drop_unlisted_links.cypher", "src", "dst")
def drop_unlisted_links(on: On, *, srcs: list[str], zk_ids: list[str], listed: list[str],
                        link_types: list[str]) -> list[RestoredLink]:
    """Links between a backup's notes that the backup does not list."""


@write("views/restore_revisions.cypher")
def restore_revisions(on: On, *, rows: list[dict[str, Any]]) -> list[RestoredRevision]:
    """Kept versions from a backup, keyed by (note, version)."""


@read("views/memory_md_notes.cypher")
def memory_md_notes(on: On, *, project: str) -> list[MemoryMdNote]:
    """A project's permanent notes with the inputs of their decay score."""


@read("views/nonconforming_notes.cypher")
def nonconforming_notes(on: On, *, project: str | None, memory_types: list[str],
                        note_kinds: list[str]) -> list[NonconformingNote]:
    """Notes whose memory_type or note_kind is missing or unknown."""


@write("views/migrate_note_fields.cypher", "zk_id")
def migrate_note_fields(on: On, *, rows: list[dict[str, Any]]) -> list[NoteId]:
    """Set fields only where the values are still those the plan was made from."""


@read("views/schema_violations.cypher")
def schema_violations(on: On, *, project: str | None, memory_types: list[str],
                      note_kinds: list[str], dim: int, limit: int) -> list[SchemaViolation]:
    """Notes that break the schema, with what is wrong."""
