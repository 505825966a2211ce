"""What every embedding runtime provides."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

Vector = list[float]


class Embedder(Protocol):
    dim: int
    runtime: str

    def encode(self, text: str) -> Vector: ...

    def encode_many(self, texts: Sequence[str]) -> list[Vector]: ...

