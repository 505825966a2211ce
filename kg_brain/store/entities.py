"""Entities: what notes are about, one node per canonical key and project, with MENTIONS from
the notes and a count of the live notes mentioning each (the weight of rare things)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypedDict

from kg_brain.store.statement import On, write


class Mentions(TypedDict):
    zk_id: str
    mentions: int


class Shifted(TypedDict):
    entities: int


@write("entities/replace_mentions.cypher")
def replace_mentions(on: On, *, rows: list[dict[str, Any]], now: datetime) -> list[Mentions]:
    """Rows of {zk_id, entities: [{key, name, kind}]}: each note's MENTIONS become these."""


@write("entities/shift_counts.cypher")
def shift_counts(on: On, *, zk_ids: list[str], delta: int) -> Shifted:
    """Live-note counts after notes were archived (-1) or brought back (+1)."""
