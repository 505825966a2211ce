"""Retrieval statements: hybrid search, deep search, neighbourhoods, access stamps."""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypedDict

from kg_brain.store.statement import On, read, write

Vector = list[float]


class SearchHit(TypedDict):
    zk_id: str
    title: str
    score: float
    preview: str
    note_kind: str
    project: str
    channels: list[str]
    links: list[dict[str, Any]]


class DeepHit(TypedDict):
    zk_id: str
    title: str
    score: float
    preview: str
    note_kind: str
    project: str
    found_by: list[dict[str, Any]]
    links: list[dict[str, Any]]


class Neighbourhood(TypedDict):
    root: str
    entities: list[dict[str, Any]]
    nodes: list[dict[str, Any]]
    edges: list[dict[str, Any]]


@write()
def search_memory(on: On, *, vector: Vector, text: str, project: str, excluded: list[str],
                  kinds: list[str] | None, fetch: int, lex_fetch: int, pool: int, rrf_k: float,
                  w_vec: float, w_lex: float, k: int, now: datetime) -> list[SearchHit]:
    """Vector + full-text fused by weighted reciprocal rank; stamps access on the hits."""


@write()
def deep_search(on: On, *, vector: Vector, text: str, project: str, excluded: list[str],
                hops: int, fetch: int, lex_fetch: int, pool: int, blend_n: int, alpha: float,
                expand_n: int, nb_limit: int, rrf_k: float, w_vec: float, w_lex: float,
                w_graph: float, decay: float, agg: str, k: int,
                now: datetime) -> list[DeepHit]:
    """Hops of blended vector queries plus typed-link expansion; stamps access on the hits."""


@read
def related_notes(on: On, *, zk_id: str, depth: int) -> Neighbourhood | None:
    """A note's neighbourhood up to `depth` hops; None when the note is missing."""
