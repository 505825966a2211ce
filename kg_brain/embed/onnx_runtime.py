"""The ONNX runtimes (`EMBEDDING_RUNTIME=onnx|onnx-int8`): onnxruntime plus the model's own
tokenizer, with the sentence-transformers pipeline's pooling done in numpy.

Nothing here imports torch: once the export is cached (see `onnx_export`), a server process
embeds with onnxruntime, `tokenizers` and numpy alone, which load in a fraction of the time.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from kg_brain.embed.base import Vector
from kg_brain.errors import ProviderError
from kg_brain.store.model import EMBEDDING_DIM

log = logging.getLogger(__name__)


class OnnxEncoder:
    """One loaded ONNX model: tokenise as sentence-transformers does (truncate to the model's
    max sequence length, pad to the longest text of the batch), run the transformer, mean-pool
    over the attention mask and L2-normalise."""

    def __init__(self, model: Path, tokenizer: Path, max_seq_length: int) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        options = ort.SessionOptions()
        options.log_severity_level = 3  # warnings about unused initialisers are noise on stderr
        self._session = ort.InferenceSession(str(model), options,
                                             providers=["CPUExecutionProvider"])
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._tokenizer = Tokenizer.from_file(str(tokenizer))
        self._tokenizer.enable_truncation(max_length=max_seq_length)
        pad = self._tokenizer.padding or {}
        self._tokenizer.enable_padding(pad_id=int(pad.get("pad_id", 0)),
                                       pad_token=str(pad.get("pad_token", "[PAD]")))

    def encode(self, texts: Sequence[str], batch_size: int) -> np.ndarray:
        """Vectors in the order of `texts`; batches group texts of similar length (longest first,
        as sentence-transformers does) so little time goes into padding."""
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        out = np.empty((len(texts), EMBEDDING_DIM), dtype=np.float32)
        for start in range(0, len(order), batch_size):
            chunk = order[start:start + batch_size]
            out[chunk] = self._batch([texts[i] for i in chunk])
        return out

    def _batch(self, texts: list[str]) -> np.ndarray:
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.asarray([e.ids for e in encodings], dtype=np.int64)
        mask = np.asarray([e.attention_mask for e in encodings], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask,
                "token_type_ids": np.asarray([e.type_ids for e in encodings], dtype=np.int64)}
        hidden = self._session.run(None, {k: v for k, v in feed.items() if k in self._inputs})[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return pooled / np.clip(norms, 1e-12, None)


class OnnxEmbedder:
    """The Embedder over an ONNX export of the model: exported (once per cache) and verified
    on first use, then loaded once per process."""

    dim = EMBEDDING_DIM

    def __init__(self, source: Path, cache_dir: Path, quantised: bool,
                 batch_size: int = 64) -> None:
        self.runtime = "onnx-int8" if quantised else "onnx"
        self.source = source
        self.cache_dir = cache_dir
        self._batch_size = batch_size
        self._encoder: OnnxEncoder | None = None
        self._lock = threading.Lock()

    def _load(self) -> OnnxEncoder:
        with self._lock:
            if self._encoder is None:
                from kg_brain.embed.onnx_export import ensure_artefact

                artefact = ensure_artefact(self.source, self.cache_dir, self.runtime)
                self._encoder = artefact.encoder()
                log.info("embedding runtime %s loaded from %s (min cosine to torch %.4f)",
                         self.runtime, artefact.model, artefact.min_cosine)
            return self._encoder

    def encode(self, text: str) -> Vector:
        return self.encode_many([text])[0]

    def encode_many(self, texts: Sequence[str]) -> list[Vector]:
        if not texts:
            return []
        encoder = self._load()
        try:
            vectors: Any = encoder.encode(texts, self._batch_size)
        except Exception as exc:  # onnxruntime raises its own error types
            raise ProviderError(f"embedding failed: {exc}") from exc
        return [v.tolist() for v in vectors]
