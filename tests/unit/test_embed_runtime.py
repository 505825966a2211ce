"""Choosing the embedding runtime, and refusing a model the ONNX graph would not compute
faithfully. Nothing here loads a model: runtimes load lazily, on first use."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kg_brain.base.errors import SetupError
from kg_brain.base.settings import load_settings
from kg_brain.enrichment.embed import (
    SentenceTransformerEmbedder,
    build_embedder,
    installed_model_path,
)
from kg_brain.enrichment.embed.onnx_export import check_pipeline
from kg_brain.enrichment.embed.onnx_graph import BertShape
from kg_brain.enrichment.embed.onnx_runtime import OnnxEmbedder


@pytest.mark.parametrize("runtime", ["torch", "onnx", "onnx-int8"])
def test_embedding_runtime_is_read_from_the_environment(
        monkeypatch: pytest.MonkeyPatch, runtime: str) -> None:
    monkeypatch.setenv("EMBEDDING_RUNTIME", runtime)
    assert build_embedder(load_settings()).runtime == runtime


def test_torch_runtime_is_sentence_transformers() -> None:
    embedder = build_embedder(load_settings(embedding_runtime="torch"))
    assert isinstance(embedder, SentenceTransformerEmbedder)


def test_onnx_runtimes_build_the_pinned_model_into_the_cache_dir(tmp_path: Path) -> None:
    embedder = build_embedder(load_settings(embedding_runtime="onnx-int8",
                                            kg_brain_cache_dir=tmp_path))
    assert isinstance(embedder, OnnxEmbedder)
    assert embedder.runtime == "onnx-int8"
    assert (embedder.source, embedder.cache_dir) == (None, tmp_path)
    assert not any(tmp_path.iterdir()), "nothing is fetched or built before the first use"


def test_an_unknown_runtime_is_refused_naming_the_variable(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EMBEDDING_RUNTIME", "tensorrt")
    with pytest.raises(SetupError, match="EMBEDDING_RUNTIME"):
        load_settings()


def test_onnx_runtime_refuses_a_model_that_is_not_a_local_folder(tmp_path: Path) -> None:
    settings = load_settings(embedding_runtime="onnx", embedding_model="someone/some-model",
                             kg_brain_cache_dir=tmp_path)
    with pytest.raises(SetupError, match="EMBEDDING_RUNTIME=torch"):
        build_embedder(settings)


def _pipeline_folder(root: Path, pooling: dict[str, bool]) -> Path:
    source = installed_model_path()
    assert source is not None
    (root / "1_Pooling").mkdir(parents=True)
    (root / "modules.json").write_text((source / "modules.json").read_text())
    config = json.loads((source / "1_Pooling" / "config.json").read_text()) | pooling
    (root / "1_Pooling" / "config.json").write_text(json.dumps(config))
    return root


def test_the_packaged_pipeline_is_mean_pooling_and_normalisation(tmp_path: Path) -> None:
    check_pipeline(_pipeline_folder(tmp_path, {}))


def test_a_cls_pooling_model_is_refused_before_anything_is_built(tmp_path: Path) -> None:
    """torch would pool the first token; the ONNX runtimes pool the mean."""
    folder = _pipeline_folder(tmp_path, {"pooling_mode_cls_token": True,
                                         "pooling_mode_mean_tokens": False})
    with pytest.raises(SetupError, match="pooling_mode_cls_token.*EMBEDDING_RUNTIME=torch"):
        check_pipeline(folder)


def test_a_model_that_is_not_a_bert_encoder_is_refused(tmp_path: Path) -> None:
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"model_type": "roberta", "hidden_act": "gelu"}))
    with pytest.raises(SetupError, match="EMBEDDING_RUNTIME=torch"):
        BertShape.read(config)
