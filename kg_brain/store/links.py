"""Typed links between notes (the closed LinkType vocabulary, checked before it gets here)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypedDict

from kg_brain.store.statement import On, write


class LinkWritten(TypedDict):
    src: str
    dst: str
    type: str


class Pruned(TypedDict):
    zk_id: str
    dropped: int
    changed: list[str]


@write("links/merge_links.cypher", "src", "dst")
def merge_links(on: On, *, rows: list[dict[str, Any]], now: datetime) -> list[LinkWritten]:
    """Create or refresh links: rows of {src, dst, type, reason, weight, origin}."""


@write("links/prune_similarity_links.cypher", "changed")
def prune_similarity_links(on: On, *, zk_ids: list[str], keep: int) -> list[Pruned]:
    """The weakest automatic RELATES_TO links beyond `keep` per note, dropped."""

