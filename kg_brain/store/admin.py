"""What the server holds: counts, indexes, version (status and brain_stats)."""

from __future__ import annotations

from typing import TypedDict

from kg_brain.store.statement import On, read


class NoteCount(TypedDict):
    project: str
    memory_type: str
    note_kind: str
    notes: int


class RelationshipCount(TypedDict):
    type: str
    relationships: int


class IndexRow(TypedDict):
    name: str
    type: str
    state: str
    properties: list[str] | None


class ServerVersion(TypedDict):
    version: str
    edition: str


@read("admin/note_counts.cypher")
def note_counts(on: On) -> list[NoteCount]:
    """Notes by project, memory type and kind."""


@read("admin/relationship_counts.cypher")
def relationship_counts(on: On) -> list[RelationshipCount]:
    """Relationships between notes by type."""


@read("admin/list_indexes.cypher")
def list_indexes(on: On) -> list[IndexRow]:
    """Every index with its state."""


@read("admin/server_version.cypher")
def server_version(on: On) -> ServerVersion:
    """The product version and edition."""
