"""Past mistakes with their fixes, for record_failure and preflight_check."""

from __future__ import annotations

from typing import Any, TypedDict

from kg_brain.store.statement import On, read

Vector = list[float]


class PastMistakeRow(TypedDict):
    mistake: dict[str, Any]
    signature_match: bool
    similarity: float | None
    fixes: list[dict[str, Any]]


@read("mistakes/preflight_mistakes.cypher")
def preflight_mistakes(on: On, *, project: str, signature: str, vector: Vector, fetch: int,
                       k: int, exclude: list[str]) -> list[PastMistakeRow]:
    """Signature matches first, then by similarity; no access stamp (a check is no use)."""
