"""The ONNX runtimes (`EMBEDDING_RUNTIME=onnx|onnx-int8`): the model built once per cache from
its weights (onnx_export), then run by onnxruntime with the model's own tokenizer (onnx_encoder).

Nothing here imports torch: a server process embeds with onnxruntime, `tokenizers` and numpy
alone, and the `onnx` package is imported only to build the model the first time.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kg_brain.base.errors import ProviderError
from kg_brain.base.vocab import EMBEDDING_DIM
from kg_brain.enrichment.embed.base import Vector
from kg_brain.enrichment.embed.onnx_encoder import OnnxEncoder
from kg_brain.enrichment.embed.onnx_export import ensure_artefact

log = logging.getLogger(__name__)


class OnnxEmbedder:
    """The Embedder over an ONNX build of the model: built (once per cache) on first use, then
    loaded once per process. `source` None is the pinned all-MiniLM-L6-v2."""

    dim = EMBEDDING_DIM

    def __init__(self, source: Path | None, cache_dir: Path, quantised: bool) -> None:
        self.runtime = "onnx-int8" if quantised else "onnx"
        self.source = source
        self.cache_dir = cache_dir
        self._encoder: OnnxEncoder | None = None
        self._lock = threading.Lock()

    def _load(self) -> OnnxEncoder:
        with self._lock:
            if self._encoder is None:
                artefact = ensure_artefact(self.source, self.cache_dir, self.runtime)
                self._encoder = artefact.encoder()
                log.info("embedding runtime %s loaded from %s", self.runtime, artefact.model)
            return self._encoder

    def encode(self, text: str) -> Vector:
        return self.encode_many([text])[0]

    def encode_many(self, texts: Sequence[str]) -> list[Vector]:
        if not texts:
            return []
        encoder = self._load()
        try:
            vectors: Any = encoder.encode(texts)
        except Exception as exc:  # onnxruntime raises its own error types
            raise ProviderError(f"embedding failed: {exc}") from exc
        return [v.tolist() for v in vectors]
