"""Statements of the graph upgrade (kg_brain/views/upgrade.py): reading a scope page by page,
giving old links their origin, re-typing automatic links; and of the sentence backfill
(kg_brain/views/sentences.py)."""

from __future__ import annotations

from typing import Any, TypedDict

from kg_brain.store.notes import NoteId
from kg_brain.store.statement import On, read, write


class GraphNote(TypedDict):
    zk_id: str
    title: str | None
    content: str | None
    note_kind: str | None
    memory_type: str | None
    mentions: list[str]
    links: list[dict[str, Any]]


class SentenceSource(TypedDict):
    zk_id: str
    title: str | None
    content: str | None


class OriginSet(TypedDict):
    src: str
    dst: str
    origin: str


class Retyped(TypedDict):
    src: str
    dst: str
    type: str


@read("upgrade/graph_notes.cypher")
def graph_notes(on: On, *, after: str, project: str | None, link_types: list[str],
                limit: int) -> list[GraphNote]:
    """A page of notes with their mentions and outgoing links (and those links' other ends)."""


@write("upgrade/set_link_origins.cypher")
def set_link_origins(on: On, *, rows: list[dict[str, Any]]) -> list[OriginSet]:
    """An origin for each given link that has none yet."""


@write("upgrade/retype_links.cypher", "src", "dst")
def retype_links(on: On, *, rows: list[dict[str, Any]]) -> list[Retyped]:
    """Automatic links re-typed, properties kept; never doubled."""


@read("upgrade/notes_without_sentences.cypher")
def notes_without_sentences(on: On, *, after: str, project: str | None,
                            limit: int) -> list[SentenceSource]:
    """A page of notes holding no sentence vectors yet."""


@read("upgrade/notes_to_fill.cypher")
def notes_to_fill(on: On, *, zk_ids: list[str]) -> list[SentenceSource]:
    """Those of the notes holding no sentence vectors yet."""


@write("upgrade/fill_sentences.cypher")
def fill_sentences(on: On, *, rows: list[dict[str, Any]]) -> list[NoteId]:
    """Sentence vectors of notes holding none, their text unchanged since read."""
