"""The retrieval methods every benchmark question runs through, by name: the product's two
searches (as configured, and with the relevance floor off) and the baselines they are measured
against. Each answers note ids, best first, and the best hit's relevance (the product's cosine
in [-1, 1]; for the flat cosine and the fusion, which apply no floor, the best cosine among the
notes they searched, so the bench can say what a floor would do to them)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from bench.baselines import Baselines, Fusion
from kg_brain.domain.search import Search
from kg_brain.shapes.models import Hit

METHODS = ("vector", "search_memory", "deep_search", "search_memory_nofloor",
           "deep_search_nofloor", "deep_reference", "fusion")
Answer = tuple[list[str], float | None]
Method = Callable[[str, str, bool], Answer]  # (query, project, include_contextual)


def _answer(hits: Sequence[Hit]) -> Answer:
    return [h.zk_id for h in hits], max((h.relevance for h in hits), default=None)


def _ids(ids: list[str]) -> Answer:
    return ids, None


def unfloored(search: Search) -> dict[str, Any]:
    """The search's constants with the relevance floor off, as Search's keywords: what the
    floor costs."""
    return {"tuning": replace(search.tuning, floor=-1.0),
            "deep_tuning": replace(search.deep_tuning, floor=-1.0),
            "word_floor": (-1.0, 0.0, 0.0)}


def build(search: Search, open_: Search, baselines: Baselines, fusion: Fusion, hops: int,
          depth: int) -> dict[str, Method]:
    """`open_`: the same search with the floor off (see unfloored)."""
    return {
        "vector": lambda q, p, c: fusion.ranked(q, p, depth, c, lexical=False),
        "search_memory": lambda q, p, c: _answer(search.search_memory(
            q, p, top_k=depth, include_contextual=c)),
        "deep_search": lambda q, p, c: _answer(search.deep_search(
            q, p, hops=hops, top_k=depth, include_contextual=c)),
        "search_memory_nofloor": lambda q, p, c: _answer(open_.search_memory(
            q, p, top_k=depth, include_contextual=c)),
        "deep_search_nofloor": lambda q, p, c: _answer(open_.deep_search(
            q, p, hops=hops, top_k=depth, include_contextual=c)),
        "deep_reference": lambda q, p, c: _ids([h.zk_id for h in baselines.deep_reference(
            q, p, hops=hops, top_k=depth, include_contextual=c)]),
        "fusion": lambda q, p, c: fusion.ranked(q, p, depth, c, lexical=True),
    }
