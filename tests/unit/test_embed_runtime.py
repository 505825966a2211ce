"""Choosing the embedding runtime, and refusing an export whose vectors are not the model's.
Nothing here loads a model: runtimes load lazily, on first use."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kg_brain.embed import SentenceTransformerEmbedder, build_embedder, packaged_model_path
from kg_brain.embed.onnx_export import MIN_COSINE, compare, refusal
from kg_brain.embed.onnx_runtime import OnnxEmbedder
from kg_brain.errors import SetupError
from kg_brain.settings import load_settings


@pytest.mark.parametrize("runtime", ["torch", "onnx", "onnx-int8"])
def test_embedding_runtime_is_read_from_the_environment(
        monkeypatch: pytest.MonkeyPatch, runtime: str) -> None:
    monkeypatch.setenv("EMBEDDING_RUNTIME", runtime)
    assert build_embedder(load_settings()).runtime == runtime


def test_torch_runtime_is_sentence_transformers() -> None:
    embedder = build_embedder(load_settings(embedding_runtime="torch"))
    assert isinstance(embedder, SentenceTransformerEmbedder)


def test_onnx_runtimes_export_the_packaged_model_into_the_cache_dir(tmp_path: Path) -> None:
    embedder = build_embedder(load_settings(embedding_runtime="onnx-int8",
                                            kg_brain_cache_dir=tmp_path))
    assert isinstance(embedder, OnnxEmbedder)
    assert embedder.runtime == "onnx-int8"
    assert (embedder.source, embedder.cache_dir) == (packaged_model_path(), tmp_path)
    assert not any(tmp_path.iterdir()), "nothing is exported before the first use"


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


def _unit_rows(rng: np.random.Generator, n: int) -> np.ndarray:
    rows = rng.normal(size=(n, 384)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_identical_vectors_pass_verification() -> None:
    reference = _unit_rows(np.random.default_rng(1), 12)
    verification = compare(reference.copy(), reference, MIN_COSINE["onnx"])
    assert verification.passed and verification.min_cosine == pytest.approx(1.0, abs=1e-6)
    assert verification.texts == 12


def test_one_diverging_vector_fails_verification_with_an_actionable_error() -> None:
    rng = np.random.default_rng(2)
    reference = _unit_rows(rng, 12)
    candidate = reference.copy()
    candidate[5] = _unit_rows(rng, 1)[0]  # one text embedded wrongly is enough to refuse
    verification = compare(candidate, reference, MIN_COSINE["onnx"])
    assert not verification.passed
    assert verification.min_cosine == pytest.approx(float(candidate[5] @ reference[5]))
    message = str(refusal("onnx", verification, Path("/cache/onnx/x/onnx")))
    assert "EMBEDDING_RUNTIME=onnx refused" in message
    assert f"{verification.min_cosine:.4f}" in message and "0.999 needed" in message
    assert "EMBEDDING_RUNTIME=torch" in message and "/cache/onnx/x/onnx" in message


def test_an_unwritable_cache_dir_is_refused_naming_the_variable(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache folder should be")
    embedder = build_embedder(load_settings(embedding_runtime="onnx",
                                            kg_brain_cache_dir=blocker))
    with pytest.raises(SetupError, match="KG_BRAIN_CACHE_DIR"):
        embedder.encode("anything")
