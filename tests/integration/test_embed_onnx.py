"""The ONNX runtimes with the real packaged model: exported into a temporary cache by two
processes at once, compared with torch, quantised, refused when the export cannot reproduce the
model, and a server process on the cached export that never imports torch."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from kg_brain.embed import SentenceTransformerEmbedder, build_embedder, packaged_model_path
from kg_brain.errors import SetupError
from kg_brain.settings import load_settings
from tests.conftest import ServerUnderTest
from tests.mcp.test_contract import CONTRACT

REPO = Path(__file__).resolve().parents[2]
TORCH_MODULES = ("torch", "transformers", "sentence_transformers")
TEXTS = ["Pin urllib3 below 2 while botocore 1.29 is in use.",
         "Why does the evolution worker keep a revision of every note it refines?",
         "NEO4J_URI=neo4j+s://abc.databases.neo4j.io needs NEO4J_PASSWORD",
         "a note about nothing in particular"]
EMBED_CHILD = """
import json, logging, sys
logging.basicConfig(level=logging.INFO, stream=sys.stderr)
from kg_brain.embed import build_embedder
from kg_brain.settings import load_settings
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
def torch_embedder() -> SentenceTransformerEmbedder:
    """The reference every ONNX runtime is compared with (the suite's embedder is onnx-int8)."""
    return SentenceTransformerEmbedder(str(packaged_model_path()))


def cosines(a: list[list[float]], b: list[list[float]]) -> np.ndarray:
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


def test_two_processes_starting_at_once_export_once(exported: dict[str, Any]) -> None:
    assert sum(err.count("exporting the embedding model") for err in exported["stderr"]) == 1
    [folder] = (exported["cache"] / "onnx").glob("*/onnx")
    assert sorted(p.name for p in folder.iterdir()) == [".lock", "manifest.json", "model.onnx"]
    first, second = exported["vectors"]
    assert np.allclose(first, second, atol=1e-6)


def test_onnx_vectors_match_torch(exported: dict[str, Any],
                                  torch_embedder: SentenceTransformerEmbedder) -> None:
    reference = torch_embedder.encode_many(TEXTS)
    assert cosines(exported["vectors"][0], reference).min() >= 0.999
    [manifest] = (exported["cache"] / "onnx").glob("*/onnx/manifest.json")
    recorded = json.loads(manifest.read_text())
    assert recorded["verification"]["min_cosine"] >= 0.999
    assert recorded["source"]["model.safetensors"]["sha256"]
    assert recorded["parameters"]["max_seq_length"] == 256


def test_int8_is_quantised_from_the_cached_export_and_stays_close_to_torch(
        exported: dict[str, Any], torch_embedder: SentenceTransformerEmbedder) -> None:
    int8 = build_embedder(load_settings(embedding_runtime="onnx-int8",
                                        kg_brain_cache_dir=exported["cache"]))
    vectors = int8.encode_many(TEXTS)
    assert cosines(vectors, torch_embedder.encode_many(TEXTS)).min() >= 0.95
    [folder] = (exported["cache"] / "onnx").glob("*/onnx-int8")
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["parameters"]["quantisation"]["weights"] == "QInt8"
    assert 0.95 <= manifest["verification"]["min_cosine"] < 0.999
    fp32 = next((exported["cache"] / "onnx").glob("*/onnx/model.onnx"))
    assert (folder / "model.onnx").stat().st_size < fp32.stat().st_size / 1.4


def test_a_model_the_export_cannot_reproduce_is_refused_and_stays_refused(
        tmp_path: Path) -> None:
    """A CLS-pooling model: torch pools the first token, the ONNX runtime the mean."""
    model = tmp_path / "cls-model"
    shutil.copytree(packaged_model_path(), model)
    pooling = model / "1_Pooling" / "config.json"
    config = json.loads(pooling.read_text()) | {"pooling_mode_cls_token": True,
                                                "pooling_mode_mean_tokens": False}
    pooling.write_text(json.dumps(config))
    settings = load_settings(embedding_runtime="onnx", embedding_model=str(model),
                             kg_brain_cache_dir=tmp_path / "cache")
    with pytest.raises(SetupError, match="EMBEDDING_RUNTIME=onnx refused"):
        build_embedder(settings).encode("anything")
    [manifest] = (tmp_path / "cache" / "onnx").glob("*/onnx/manifest.json")
    stamp = manifest.stat().st_mtime_ns
    with pytest.raises(SetupError, match="EMBEDDING_RUNTIME=torch"):
        build_embedder(settings).encode("anything")
    assert manifest.stat().st_mtime_ns == stamp, "the refusal is remembered, not re-exported"


def test_a_server_on_the_cached_export_never_imports_torch(
        exported: dict[str, Any], neo4j_server: ServerUnderTest, project: str) -> None:
    conn = neo4j_server.conn
    env = child_env(exported["cache"], "onnx", NEO4J_URI=conn.uri, NEO4J_USER=conn.user,
                    NEO4J_PASSWORD=conn.password or "", NEO4J_DATABASE=conn.database,
                    KG_BRAIN_PROJECT=project, LLM_PROVIDER="heuristic",
                    SCHEDULER_IN_SERVER="false")
    done = subprocess.run([sys.executable, "-c", SERVER_CHILD,
                           "The ONNX runtime embeds without torch once the export is cached.",
                           "which runtime embeds without torch?"],
                          env=env, cwd=REPO, text=True, capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["tools"] == len(CONTRACT)
    assert "without torch" in report["hits"][0]["preview"]
    assert report["loaded"] == []
