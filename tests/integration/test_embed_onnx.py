"""The ONNX runtimes with the real packaged model: built into a temporary cache by two processes
at once, compared with torch on 500+ texts, the pinned files checked, a user's own folder used as
given, and a server process on the cached model that never imports torch."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from kg_brain.base.errors import SetupError
from kg_brain.base.settings import load_settings
from kg_brain.enrichment.embed import (
    SentenceTransformerEmbedder,
    build_embedder,
    installed_model_path,
    model_files,
)
from kg_brain.enrichment.embed.model_files import PINNED
from kg_brain.enrichment.embed.onnx_encoder import OnnxEncoder
from kg_brain.enrichment.embed.onnx_export import ensure_artefact
from tests.conftest import ServerUnderTest
from tests.embed_texts import comparison_texts
from tests.mcp.test_contract import CONTRACT

REPO = Path(__file__).resolve().parents[2]
TORCH_MODULES = ("torch", "transformers", "sentence_transformers")
TEXTS = ["Pin urllib3 below 2 while botocore 1.29 is in use.",
         "Why does the evolution worker keep a revision of every note it refines?",
         "NEO4J_URI=neo4j+s://abc.databases.neo4j.io needs NEO4J_PASSWORD",
         "a note about nothing in particular"]
COMPARISON = comparison_texts()
EMBED_CHILD = """
import json, logging, sys
logging.basicConfig(level=logging.INFO, stream=sys.stderr)
from kg_brain.enrichment.embed import build_embedder
from kg_brain.base.settings import load_settings
sys.stdout.write(json.dumps(build_embedder(load_settings()).encode_many(json.loads(sys.argv[1]))))
"""
SERVER_CHILD = f"TORCH = {TORCH_MODULES!r}\n" + """
import json, sys
import anyio
from fastmcp import Client
import mcp_server

async def session():
    async with Client(mcp_server.mcp) as client:
        tools = await client.list_tools()
        await client.call_tool("add_memory", {"content": sys.argv[1]})
        found = await client.call_tool("search_memory", {"query": sys.argv[2]})
    return len(tools), found.structured_content["hits"]

listed, hits = anyio.run(session)
loaded = sorted(m for m in sys.modules if m.split(".")[0] in TORCH)
sys.stdout.write(json.dumps({"tools": listed, "hits": hits, "loaded": loaded}))
"""


def child_env(cache: Path, runtime: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
    return {**env, "PYTHONPATH": str(REPO), "EMBEDDING_RUNTIME": runtime,
            "KG_BRAIN_CACHE_DIR": str(cache), **extra}


@pytest.fixture(scope="module")
def reference() -> np.ndarray:
    """Torch's vectors of the comparison texts (the suite's own embedder is onnx-int8)."""
    torch = SentenceTransformerEmbedder(str(installed_model_path()))
    return np.asarray(torch.encode_many(COMPARISON))


def cosines(a: Any, b: Any) -> np.ndarray:
    return np.sum(np.asarray(a) * np.asarray(b), axis=1)


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Two processes start at once on an empty cache and both embed TEXTS with `onnx`."""
    cache = tmp_path_factory.mktemp("embedding-cache")
    children = [subprocess.Popen([sys.executable, "-c", EMBED_CHILD, json.dumps(TEXTS)],
                                 env=child_env(cache, "onnx"), cwd=REPO, text=True,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                for _ in range(2)]
    outputs = [child.communicate(timeout=600) for child in children]
    for child, (_, err) in zip(children, outputs, strict=True):
        assert child.returncode == 0, err
    return {"cache": cache, "vectors": [json.loads(out) for out, _ in outputs],
            "stderr": [err for _, err in outputs]}


def test_two_processes_starting_at_once_build_once(exported: dict[str, Any]) -> None:
    assert sum(err.count("building the embedding model") for err in exported["stderr"]) == 1
    [folder] = (exported["cache"] / "onnx").glob("*/onnx")
    assert sorted(p.name for p in folder.iterdir()) == [".lock", "manifest.json", "model.onnx"]
    first, second = exported["vectors"]
    assert np.allclose(first, second, atol=1e-6)
    recorded = json.loads((folder / "manifest.json").read_text())
    assert recorded["source"]["model.safetensors"]["sha256"] == PINNED["model.safetensors"]
    assert recorded["parameters"]["max_seq_length"] == 256
    assert recorded["parameters"]["pinned_sources"] is True


def test_onnx_vectors_match_torch_on_every_comparison_text(
        exported: dict[str, Any], reference: np.ndarray) -> None:
    """Many texts in one call (as imports embed) and one text a call (as searches embed)."""
    fp32 = build_embedder(load_settings(embedding_runtime="onnx",
                                        kg_brain_cache_dir=exported["cache"]))
    together = cosines(fp32.encode_many(COMPARISON), reference)
    single = cosines([fp32.encode(text) for text in COMPARISON[:120]], reference[:120])
    assert len(COMPARISON) >= 500
    assert together.min() >= 0.9999, COMPARISON[int(together.argmin())]
    assert single.min() >= 0.9999, COMPARISON[int(single.argmin())]


def test_texts_run_at_once_give_the_vectors_one_thread_gives(
        exported: dict[str, Any]) -> None:
    """An import's call: the texts on 3 threads at once, against the same texts one after
    another on one thread: the very same floats, in the order of the texts."""
    artefact = ensure_artefact(None, exported["cache"], "onnx")
    together = artefact.encoder().encode(COMPARISON)
    alone = OnnxEncoder(artefact.model, artefact.tokenizer, artefact.max_seq_length,
                        workers=1).encode(COMPARISON)
    assert np.array_equal(OnnxEncoder(artefact.model, artefact.tokenizer,
                                      artefact.max_seq_length, workers=3).encode(COMPARISON),
                          alone)
    assert np.array_equal(together, alone)


def test_a_text_gets_its_own_vector_whatever_is_embedded_beside_it(
        exported: dict[str, Any]) -> None:
    """The int8 model quantises activations with ranges over a whole run: a note embedded
    among others (an import, an evolution job's re-embeds) gets the vector add_memory gives it
    alone, bit for bit, in any company and order."""
    int8 = build_embedder(load_settings(embedding_runtime="onnx-int8",
                                        kg_brain_cache_dir=exported["cache"]))
    texts = COMPARISON[:48]
    alone = np.asarray([int8.encode(text) for text in texts])
    assert np.array_equal(np.asarray(int8.encode_many(texts)), alone)
    assert np.array_equal(np.asarray(int8.encode_many(texts[::-1]))[::-1], alone)
    assert np.array_equal(np.asarray(int8.encode_many([texts[0], COMPARISON[-1] * 4]))[0],
                          alone[0])


def test_int8_stays_close_to_torch_and_is_smaller(
        exported: dict[str, Any], reference: np.ndarray) -> None:
    int8 = build_embedder(load_settings(embedding_runtime="onnx-int8",
                                        kg_brain_cache_dir=exported["cache"]))
    found = cosines(int8.encode_many(COMPARISON), reference)
    assert found.min() >= 0.95, COMPARISON[int(found.argmin())]
    assert found.mean() >= 0.98
    [folder] = (exported["cache"] / "onnx").glob("*/onnx-int8")
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["parameters"]["quantisation"]["weights"] == "QInt8"
    fp32 = next((exported["cache"] / "onnx").glob("*/onnx/model.onnx"))
    assert (folder / "model.onnx").stat().st_size < fp32.stat().st_size / 1.4


def _model_copy(into: Path) -> Path:
    """The packaged model folder with links to its files, so one can be replaced cheaply."""
    source = installed_model_path()
    assert source is not None
    for path in source.rglob("*"):
        if path.is_file():
            target = into / path.relative_to(source)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(path)
    return into


def test_a_changed_pinned_file_is_refused_naming_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = _model_copy(tmp_path / "model")
    tokenizer = model / "tokenizer.json"
    text = tokenizer.read_text(encoding="utf-8").replace('"[UNK]"', '"[UNKNOWN]"', 1)
    tokenizer.unlink()
    tokenizer.write_text(text, encoding="utf-8")
    monkeypatch.setattr(model_files, "installed_model_path", lambda: model)
    embedder = build_embedder(load_settings(embedding_runtime="onnx-int8",
                                            kg_brain_cache_dir=tmp_path / "cache"))
    with pytest.raises(SetupError, match=f"{tokenizer} is not the published"):
        embedder.encode("anything")
    assert not list((tmp_path / "cache").glob("onnx/*/*/model.onnx"))


def test_a_folder_named_by_embedding_model_is_used_as_given(tmp_path: Path) -> None:
    """A shorter max sequence length than the published config: not the pinned files, yet
    built and used, since the user chose the folder."""
    model = _model_copy(tmp_path / "model")
    config = model / "sentence_bert_config.json"
    changed = json.loads(config.read_text()) | {"max_seq_length": 16}
    config.unlink()
    config.write_text(json.dumps(changed))
    settings = load_settings(embedding_runtime="onnx-int8", embedding_model=str(model),
                             kg_brain_cache_dir=tmp_path / "cache")
    long_text = "the quick brown fox jumps over the lazy dog " * 10
    short, cut = build_embedder(settings).encode_many([long_text, " ".join(long_text.split()[:14])])
    assert cosines([short], [cut])[0] > 0.999, "the folder's own 16-token limit applies"
    [manifest] = (tmp_path / "cache" / "onnx").glob("*/onnx-int8/manifest.json")
    assert json.loads(manifest.read_text())["parameters"]["pinned_sources"] is False


def test_a_server_on_the_cached_export_never_imports_torch(
        exported: dict[str, Any], neo4j_server: ServerUnderTest, project: str) -> None:
    conn = neo4j_server.conn
    env = child_env(exported["cache"], "onnx", NEO4J_URI=conn.uri, NEO4J_USER=conn.user,
                    NEO4J_PASSWORD=conn.password or "", NEO4J_DATABASE=conn.database,
                    KG_BRAIN_PROJECT=project, LLM_PROVIDER="heuristic",
                    SCHEDULER_IN_SERVER="false", KG_BRAIN_TOOLS="full")
    done = subprocess.run([sys.executable, "-c", SERVER_CHILD,
                           "The ONNX runtime embeds without torch once the export is cached.",
                           "which runtime embeds without torch?"],
                          env=env, cwd=REPO, text=True, capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["tools"] == len(CONTRACT)
    assert "without torch" in report["hits"][0]["preview"]
    assert report["loaded"] == []
