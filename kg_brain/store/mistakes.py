"""Past mistakes with their fixes, for record_failure and preflight_check."""

from __future__ import annotations

from typing import Any, TypedDict

from kg_brain.store.statement import On, read

Vector = list[float]


class Task(TypedDict):
    """What changes with the task, sent as one map (one plan whatever the task and project, as
    the searches' Question): `project`, the project read; `signature`, the task's normalised
    failure signature ('' = none); `exclude`, the zk_ids left out."""

    project: str
    signature: str
    exclude: list[str]


class PastMistakeRow(TypedDict):
    mistake: dict[str, Any]
    signature_match: bool
    similarity: float | None
    fixes: list[dict[str, Any]]


@read("mistakes/preflight_mistakes.cypher")
def preflight_mistakes(on: On, *, question: Task, vector: Vector, fetch: int,
                       k: int) -> list[PastMistakeRow]:
    """Signature matches first, then by similarity; no access stamp (a check is no use)."""
