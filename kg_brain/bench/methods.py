"""The retrieval methods every benchmark question runs through, by name: the product's two
searches and the baselines they are measured against. Each returns note ids, best first."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from kg_brain.bench.baselines import Baselines, Fusion
from kg_brain.models import Hit
from kg_brain.search import Search

METHODS = ("vector", "search_memory", "deep_search", "deep_reference", "fusion")
Method = Callable[[str, str, bool], list[str]]  # (query, project, include_contextual) -> ids


def build(search: Search, baselines: Baselines, fusion: Fusion, hops: int,
          depth: int) -> dict[str, Method]:
    def ids(hits: Sequence[Hit]) -> list[str]:
        return [h.zk_id for h in hits]

    return {
        "vector": lambda q, p, c: ids(baselines.vector_search(
            q, p, top_k=depth, include_contextual=c)),
        "search_memory": lambda q, p, c: ids(search.search_memory(
            q, p, top_k=depth, include_contextual=c)),
        "deep_search": lambda q, p, c: ids(search.deep_search(
            q, p, hops=hops, top_k=depth, include_contextual=c)),
        "deep_reference": lambda q, p, c: ids(baselines.deep_reference(
            q, p, hops=hops, top_k=depth, include_contextual=c)),
        "fusion": lambda q, p, c: fusion.search(q, p, top_k=depth, include_contextual=c),
    }
