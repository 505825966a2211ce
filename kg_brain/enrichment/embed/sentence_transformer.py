"""The reference runtime: sentence-transformers on torch (`EMBEDDING_RUNTIME=torch`).

The model loads lazily on first use, so the MCP server answers `initialize` before torch is even
imported. It needs the `torch` extra (`pip install 'kg-brain[torch]'`); the test suite checks
the ONNX runtimes against it.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Sequence
from typing import Any

from kg_brain.base.errors import ProviderError, SetupError
from kg_brain.base.vocab import EMBEDDING_DIM
from kg_brain.enrichment.embed.base import Vector
from kg_brain.enrichment.embed.model_files import installed_model_path

log = logging.getLogger(__name__)


def _quiet_loading() -> None:
    """sentence-transformers logs its loading at INFO and transformers draws a progress bar over
    the weights it reads: noise on the stderr of a server or of `kg-brain wire`. Their warnings
    and errors still show."""
    from transformers.utils import logging as transformers_logging

    logging.getLogger("sentence_transformers").setLevel(logging.WARNING)
    transformers_logging.disable_progress_bar()


class SentenceTransformerEmbedder:
    """Normalised 384-d vectors, batched; the model is loaded once per process, on first use."""

    dim = EMBEDDING_DIM
    runtime = "torch"

    def __init__(self, model: str | None = None, batch_size: int = 64) -> None:
        self._model_ref = model
        self._batch_size = batch_size
        self._model: Any = None
        self._lock = threading.Lock()

    def model(self) -> Any:
        """The loaded `SentenceTransformer`."""
        with self._lock:
            if self._model is not None:
                return self._model
            # A local path loads without the hub; HF_HUB_OFFLINE is not set here because it
            # would also block Hugging Face Inference calls made by the LLM router.
            os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError as exc:
                raise SetupError("EMBEDDING_RUNTIME=torch needs the torch extra: "
                                 "pip install 'kg-brain[torch]'") from exc
            _quiet_loading()
            path = self._model_ref or installed_model_path()
            if path is None:
                raise SetupError("EMBEDDING_RUNTIME=torch needs the torch extra: "
                                 "pip install 'kg-brain[torch]'")
            try:
                model = SentenceTransformer(str(path))
            except Exception as exc:  # any loader failure is one clear provider error
                raise ProviderError(f"embedding model could not be loaded: {exc}") from exc
            dim = model.get_embedding_dimension() if hasattr(model, "get_embedding_dimension") \
                else model.get_sentence_embedding_dimension()
            if dim != EMBEDDING_DIM:
                raise ProviderError(
                    f"embedding model gives {dim}-d vectors; {EMBEDDING_DIM} needed")
            log.info("embedding model loaded from %s on %s", path, model.device)
            self._model = model
            return model

    def encode(self, text: str) -> Vector:
        return self.encode_many([text])[0]

    def encode_many(self, texts: Sequence[str]) -> list[Vector]:
        if not texts:
            return []
        model = self.model()
        try:
            vectors = model.encode(
                list(texts),
                batch_size=self._batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        except Exception as exc:
            raise ProviderError(f"embedding failed: {exc}") from exc
        return [v.tolist() for v in vectors]
