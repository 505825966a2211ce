"""One loaded ONNX model of all-MiniLM-L6-v2: the sentence-transformers pipeline (tokenise,
transformer, mean pooling, normalisation) with onnxruntime, `tokenizers` and numpy only."""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from kg_brain.base.vocab import EMBEDDING_DIM


def usable_cores() -> int:
    """The CPUs this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


class OnnxEncoder:
    """One loaded ONNX model: tokenise as sentence-transformers does (truncate to the model's
    max sequence length, pad to the longest text of the batch), run the transformer, mean-pool
    over the attention mask and L2-normalise.

    Each run of the model uses one thread: onnxruntime's default splits every operator over
    the cores, its threads spinning while they wait for each other, which costs more CPU for
    the same vectors, and beside another busy process (the database, during an import) every
    operator waits for its slowest thread. A call with several batches runs them on `workers`
    threads at once instead (onnxruntime releases the GIL while it runs), one batch each; the
    vectors are the same either way."""

    def __init__(self, model: Path, tokenizer: Path, max_seq_length: int,
                 workers: int | None = None) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        options = ort.SessionOptions()
        options.log_severity_level = 3  # warnings about unused initialisers are noise on stderr
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        self._session = ort.InferenceSession(str(model), options,
                                             providers=["CPUExecutionProvider"])
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._tokenizer = Tokenizer.from_file(str(tokenizer))
        self._tokenizer.enable_truncation(max_length=max_seq_length)
        pad = self._tokenizer.padding or {}
        self._tokenizer.enable_padding(pad_id=int(pad.get("pad_id", 0)),
                                       pad_token=str(pad.get("pad_token", "[PAD]")))
        self._workers = ThreadPoolExecutor(max_workers=workers or usable_cores(),
                                           thread_name_prefix="embed")

    def encode(self, texts: Sequence[str], batch_size: int) -> np.ndarray:
        """Vectors in the order of `texts`; batches group texts of similar length (longest first,
        as sentence-transformers does) so little time goes into padding."""
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        chunks = [order[start:start + batch_size] for start in range(0, len(order), batch_size)]
        out: np.ndarray = np.empty((len(texts), EMBEDDING_DIM), dtype=np.float32)
        if len(chunks) == 1:
            out[chunks[0]] = self._batch([texts[i] for i in chunks[0]])
            return out
        batches = self._workers.map(lambda chunk: self._batch([texts[i] for i in chunk]), chunks)
        for chunk, vectors in zip(chunks, batches, strict=True):
            out[chunk] = vectors
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
