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
    max sequence length), run the transformer, mean-pool over the attention mask and
    L2-normalise.

    Each run of the model encodes one text, so a text's vector never depends on the texts
    embedded with it: the int8 model quantises its activations dynamically, with ranges taken
    over the whole input of a run, so in a batch the other texts (and their padding) would move
    a text's vector by up to 0.02 in cosine, and a note would get one vector from add_memory
    (alone) and another from an import or an evolution job (in company). A run of one text
    also pads nothing: it costs less CPU per text than a batch of 64 texts of similar length.

    Each run of the model uses one thread: onnxruntime's default splits every operator over
    the cores, its threads spinning while they wait for each other, which costs more CPU for
    the same vectors, and beside another busy process (the database, during an import) every
    operator waits for its slowest thread. A call with several texts runs them on `workers`
    threads at once instead (onnxruntime releases the GIL while it runs), one text each; the
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
        self._tokenizer.no_padding()  # the model's tokenizer file pads every text to 128 tokens
        self._workers = ThreadPoolExecutor(max_workers=workers or usable_cores(),
                                           thread_name_prefix="embed")

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors in the order of `texts`, each text run alone (the class's note)."""
        out: np.ndarray = np.empty((len(texts), EMBEDDING_DIM), dtype=np.float32)
        if len(texts) == 1:
            out[0] = self._run(texts[0])
            return out
        for i, vector in enumerate(self._workers.map(self._run, texts)):
            out[i] = vector
        return out

    def _run(self, text: str) -> np.ndarray:
        encoding = self._tokenizer.encode(text)
        ids = np.asarray([encoding.ids], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": np.ones_like(ids),
                "token_type_ids": np.asarray([encoding.type_ids], dtype=np.int64)}
        hidden = self._session.run(None, {k: v for k, v in feed.items() if k in self._inputs})[0]
        pooled = hidden.sum(axis=1) / np.float32(ids.shape[1])
        return (pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None))[0]
