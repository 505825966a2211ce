"""One loaded ONNX model of all-MiniLM-L6-v2: the sentence-transformers pipeline (tokenise,
transformer, mean pooling, normalisation) with onnxruntime, `tokenizers` and numpy only."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from kg_brain.base.vocab import EMBEDDING_DIM


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
        out: np.ndarray = np.empty((len(texts), EMBEDDING_DIM), dtype=np.float32)
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
