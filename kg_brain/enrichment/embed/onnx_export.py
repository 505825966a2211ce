"""The ONNX model of the sentence-transformers model: built once per cache, from the weights alone.

An artefact lives in `<cache>/onnx/<source id>/<runtime>/` beside a `manifest.json` holding the
checksums of the source model's files (weights, tokenizer, configs), the build parameters (opset,
quantisation, max sequence length, library versions) and the built file's checksum. A start reuses
the artefact when all of it matches; a file is hashed again only when its size or modification
time changed. Building takes a lock file and writes to a temporary file renamed into place, so
processes starting at once build once and never load a half-written model. The graph is written
by `onnx_graph` (no torch); the packaged model's files are first checked against their pinned
sums (`model_files`), while a folder named by EMBEDDING_MODEL is used as given.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from kg_brain.base.errors import SetupError
from kg_brain.base.private import private_dir, tighten
from kg_brain.enrichment.embed import model_files
from kg_brain.enrichment.embed.onnx_encoder import OnnxEncoder
from kg_brain.enrichment.embed.onnx_graph import OPSET, build_bert_graph

log = logging.getLogger(__name__)
FORMAT = 2
MODEL_FILE = "model.onnx"
MANIFEST = "manifest.json"
INT8 = {"method": "dynamic, as onnxruntime.quantize_dynamic(per_channel=True)",
        "weights": "QInt8", "per_channel": True, "operators": ["MatMul"]}
VERSIONED = ("onnx", "onnxruntime", "safetensors", "tokenizers")
PIPELINE = ["sentence_transformers.models.Transformer", "sentence_transformers.models.Pooling",
            "sentence_transformers.models.Normalize"]


@dataclass(frozen=True)
class Artefact:
    model: Path
    tokenizer: Path
    max_seq_length: int

    def encoder(self) -> OnnxEncoder:
        return OnnxEncoder(self.model, self.tokenizer, self.max_seq_length)


def ensure_artefact(source: Path | None, cache_dir: Path, runtime: str) -> Artefact:
    """The built artefact for `runtime` of the model folder `source` (None: the pinned packaged
    model), building it first when the cache has none that matches."""
    try:
        private_dir(cache_dir)
        if source is None:
            with _locked(cache_dir / ".model.lock"):
                source = model_files.installed_model_path() or model_files.fetch_model(cache_dir)
            pinned = True
        else:
            pinned = False
        return _ensure_built(source, pinned, cache_dir, runtime)
    except OSError as exc:
        raise SetupError(f"EMBEDDING_RUNTIME={runtime} could not write its model under "
                         f"KG_BRAIN_CACHE_DIR ({exc})") from exc


def _ensure_built(source: Path, pinned: bool, cache_dir: Path, runtime: str) -> Artefact:
    if not (source / "tokenizer.json").is_file():
        raise SetupError(f"EMBEDDING_RUNTIME={runtime} needs a local sentence-transformers "
                         f"folder with a tokenizer.json; {source} is not one")
    folder = cache_dir / "onnx" / hashlib.sha256(str(source.resolve()).encode()).hexdigest()[:16] \
        / runtime
    wanted = build_parameters(source, runtime, pinned)
    if _reusable(folder, source, wanted) is None:
        private_dir(folder)
        with _locked(folder / ".lock"):
            if _reusable(folder, source, wanted) is None:
                _build(folder, source, wanted)
        tighten(folder)  # the build writes with the process's umask
    return Artefact(folder / MODEL_FILE, source / "tokenizer.json", wanted["max_seq_length"])


def build_parameters(source: Path, runtime: str, pinned: bool) -> dict[str, Any]:
    """Everything besides the source files that decides what the build produces."""
    return {"format": FORMAT, "runtime": runtime, "opset": OPSET,
            "builder": "kg_brain.enrichment.embed.onnx_graph", "pinned_sources": pinned,
            "quantisation": INT8 if runtime == "onnx-int8" else None,
            "max_seq_length": max_seq_length(source),
            "versions": {name: _version(name) for name in VERSIONED}}


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def max_seq_length(source: Path) -> int:
    """sentence-transformers' own rule: the configured length, capped by what the tokenizer and
    the position embeddings allow."""
    limits = [_json(source / "sentence_bert_config.json").get("max_seq_length"),
              _json(source / "tokenizer_config.json").get("model_max_length"),
              _json(source / "config.json").get("max_position_embeddings")]
    known = [int(v) for v in limits if isinstance(v, int | float) and v > 0]
    if not known:
        raise SetupError(f"{source} states no max sequence length")
    return min(known)


def check_pipeline(source: Path) -> None:
    """The ONNX runtimes compute transformer, mean pooling, normalisation: a folder whose
    sentence-transformers pipeline is anything else is refused rather than embedded wrongly."""
    modules = source / "modules.json"
    kinds = [step.get("type") for step in _json_list(modules)]
    pooling = _json(source / "1_Pooling" / "config.json")
    modes = sorted(k for k, v in pooling.items() if k.startswith("pooling_mode") and v is True)
    if kinds != PIPELINE or modes != ["pooling_mode_mean_tokens"]:
        raise SetupError(f"{source}: the ONNX runtimes compute mean pooling and normalisation, "
                         f"this model's pipeline is {kinds} with pooling {modes}; "
                         "use EMBEDDING_RUNTIME=torch")


def _json(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def _json_list(path: Path) -> list[dict[str, Any]]:
    value = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else []
    return value if isinstance(value, list) else []


def _reusable(folder: Path, source: Path, wanted: dict[str, Any]) -> dict[str, Any] | None:
    """The manifest when it describes a build of these files with these parameters."""
    try:
        manifest: dict[str, Any] = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if manifest.get("parameters") != wanted:
        return None
    if not _same_files(source, manifest["source"]):
        return None
    if not _same_files(folder, {MODEL_FILE: manifest["model"]}, only_listed=True):
        return None
    return manifest


def _same_files(root: Path, recorded: dict[str, dict[str, Any]],
                only_listed: bool = False) -> bool:
    """Whether the files under `root` are the recorded ones; hashes a file again only when its
    size or modification time differs from the record."""
    names = set(recorded) if only_listed else set(_listing(root))
    if names != set(recorded):
        return False
    for name in names:
        path, entry = root / name, recorded[name]
        try:
            stat = path.stat()
        except OSError:
            return False
        if (stat.st_size, stat.st_mtime_ns) != (entry["size"], entry["mtime_ns"]) \
                and model_files.sha256(path) != entry["sha256"]:
            return False
    return True


def _listing(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def _record(path: Path) -> dict[str, Any]:
    stat = path.stat()
    return {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": model_files.sha256(path)}


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock held across processes (and threads: each open is its own lock)."""
    with path.open("a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _build(folder: Path, source: Path, wanted: dict[str, Any]) -> None:
    """Check the sources, build the graph, then publish atomically: the model file first, the
    manifest naming it last."""
    check_pipeline(source)
    if wanted["pinned_sources"]:
        model_files.check_pinned(source)
    log.info("building the embedding model for EMBEDDING_RUNTIME=%s into %s",
             wanted["runtime"], folder)
    tmp = folder / f"{MODEL_FILE}.{os.getpid()}.tmp"
    try:
        build_bert_graph(source / "model.safetensors", source / "config.json", tmp,
                         wanted["runtime"] == "onnx-int8")
        os.replace(tmp, folder / MODEL_FILE)
    finally:
        tmp.unlink(missing_ok=True)
    manifest = {"parameters": wanted, "source": {n: _record(source / n) for n in _listing(source)},
                "model": _record(folder / MODEL_FILE), "source_path": str(source),
                "created": datetime.now(UTC).isoformat()}
    _write_atomically(folder / MANIFEST, json.dumps(manifest, indent=2))


def _write_atomically(path: Path, text: str) -> None:
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
