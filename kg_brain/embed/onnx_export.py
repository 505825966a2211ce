"""The ONNX export of the sentence-transformers model: made once per cache, verified, shared.

An artefact lives in `<cache>/onnx/<source id>/<runtime>/` beside a `manifest.json` holding the
checksums of the source model's files (weights, tokenizer, configs), the export parameters
(opset, quantisation, max sequence length, library versions), the exported file's checksum and
its verification against torch. A start reuses the artefact when all of it matches, without
importing torch; a file is hashed again only when its size or modification time changed.
Exporting takes a lock file and writes to a temporary file renamed into place, so processes
starting at once export once and never load a half-written model. A failed verification is
recorded and refuses that runtime, now and on later starts, until something it depends on changes.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import sys
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from kg_brain.embed.onnx_encoder import OnnxEncoder
from kg_brain.embed.probe import PROBE_TEXTS
from kg_brain.errors import ProviderError, SetupError
from kg_brain.private import private_dir, tighten

log = logging.getLogger(__name__)
FORMAT = 1
OPSET = 18
MODEL_FILE = "model.onnx"
MANIFEST = "manifest.json"
# int8 sits near 0.97 on empty text and 0.99 on the rest; per-tensor int8 falls to 0.88.
MIN_COSINE = {"onnx": 0.999, "onnx-int8": 0.95}
INT8 = {"method": "onnxruntime.quantize_dynamic", "weights": "QInt8", "per_channel": True,
        "operators": ["MatMul"]}
VERSIONED = ("torch", "transformers", "sentence-transformers", "onnx", "onnxruntime",
             "tokenizers")


@dataclass(frozen=True)
class Verification:
    """Cosine of each probe text's vector to the torch vector of the same text."""

    min_cosine: float
    mean_cosine: float
    floor: float
    texts: int

    @property
    def passed(self) -> bool:
        return self.min_cosine >= self.floor


@dataclass(frozen=True)
class Artefact:
    model: Path
    tokenizer: Path
    max_seq_length: int
    min_cosine: float

    def encoder(self) -> OnnxEncoder:
        return OnnxEncoder(self.model, self.tokenizer, self.max_seq_length)


def compare(candidate: np.ndarray, reference: np.ndarray, floor: float) -> Verification:
    """Both sets are unit vectors in the same order, so the row-wise dot is the cosine."""
    cosines = np.sum(candidate * reference, axis=1)
    return Verification(float(cosines.min()), float(cosines.mean()), floor, len(cosines))


def refusal(runtime: str, verification: Verification, folder: Path) -> SetupError:
    return SetupError(
        f"EMBEDDING_RUNTIME={runtime} refused: its vectors differ from the torch reference "
        f"(min cosine {verification.min_cosine:.4f} over {verification.texts} probe texts, "
        f"{verification.floor} needed); use EMBEDDING_RUNTIME=torch, or delete {folder} to "
        "export again")


def ensure_artefact(source: Path, cache_dir: Path, runtime: str) -> Artefact:
    """The verified artefact for `runtime`, exporting it first when the cache has none that
    matches; raises SetupError when its verification failed."""
    if not (source / "tokenizer.json").is_file():
        raise SetupError(f"EMBEDDING_RUNTIME={runtime} needs a local sentence-transformers "
                         f"folder with a tokenizer.json; {source} is not one")
    folder = cache_dir / "onnx" / hashlib.sha256(str(source.resolve()).encode()).hexdigest()[:16] \
        / runtime
    wanted = export_parameters(source, runtime)
    manifest = _reusable(folder, source, wanted)
    if manifest is None:
        try:
            private_dir(folder)
            with _locked(folder / ".lock"):
                manifest = _reusable(folder, source, wanted) \
                    or _export(folder, source, cache_dir, runtime, wanted)
            tighten(folder)  # the exporters write with the process's umask
        except OSError as exc:
            raise SetupError(f"EMBEDDING_RUNTIME={runtime} could not write its export under "
                             f"KG_BRAIN_CACHE_DIR ({exc})") from exc
    verification = Verification(**manifest["verification"])
    if not verification.passed:
        raise refusal(runtime, verification, folder)
    return Artefact(folder / MODEL_FILE, source / "tokenizer.json", wanted["max_seq_length"],
                    verification.min_cosine)


def export_parameters(source: Path, runtime: str) -> dict[str, Any]:
    """Everything besides the source files that decides what the export produces."""
    return {"format": FORMAT, "runtime": runtime, "opset": OPSET,
            "exporter": "torch.onnx.export(dynamo=True)",
            "quantisation": INT8 if runtime == "onnx-int8" else None,
            "max_seq_length": max_seq_length(source), "min_cosine": MIN_COSINE[runtime],
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


def _json(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def _reusable(folder: Path, source: Path, wanted: dict[str, Any]) -> dict[str, Any] | None:
    """The manifest when it describes an export of these files with these parameters."""
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
                and _sha256(path) != entry["sha256"]:
            return False
    return True


def _listing(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def _record(path: Path) -> dict[str, Any]:
    stat = path.stat()
    return {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": _sha256(path)}


def _sha256(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock held across processes (and threads: each open is its own lock)."""
    with path.open("a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _export(folder: Path, source: Path, cache_dir: Path, runtime: str,
            wanted: dict[str, Any]) -> dict[str, Any]:
    """Export (or quantise the fp32 export), verify against torch, then publish atomically:
    the model file first, the manifest naming it last."""
    from kg_brain.embed.sentence_transformer import SentenceTransformerEmbedder

    log.info("exporting the embedding model for EMBEDDING_RUNTIME=%s into %s", runtime, folder)
    reference = SentenceTransformerEmbedder(str(source))
    tmp = folder / f"{MODEL_FILE}.{os.getpid()}.tmp"
    try:
        _produce(runtime, reference, source, cache_dir, tmp)
        encoder = OnnxEncoder(tmp, source / "tokenizer.json", wanted["max_seq_length"])
        expected = np.asarray(reference.encode_many(PROBE_TEXTS), dtype=np.float32)
        # Batched (padded) and one text at a time, as searches embed.
        verification = compare(np.concatenate([encoder.encode(PROBE_TEXTS, 8),
                                               encoder.encode(PROBE_TEXTS, 1)]),
                               np.concatenate([expected, expected]), MIN_COSINE[runtime])
        os.replace(tmp, folder / MODEL_FILE)
    finally:
        tmp.unlink(missing_ok=True)
    manifest = {"parameters": wanted, "source": {n: _record(source / n) for n in _listing(source)},
                "model": _record(folder / MODEL_FILE), "verification": asdict(verification),
                "source_path": str(source), "created": datetime.now(UTC).isoformat()}
    _write_atomically(folder / MANIFEST, json.dumps(manifest, indent=2))
    log.info("EMBEDDING_RUNTIME=%s verified: cosine to torch min %.5f, mean %.5f (floor %s)",
             runtime, verification.min_cosine, verification.mean_cosine, verification.floor)
    return manifest


def _produce(runtime: str, reference: Any, source: Path, cache_dir: Path, out: Path) -> None:
    try:
        if runtime == "onnx":
            _export_fp32(reference.model(), out)
        else:
            _quantise(ensure_artefact(source, cache_dir, "onnx").model, out)
    except (SetupError, ProviderError, OSError):
        raise
    except Exception as exc:  # the exporter and quantiser raise many types: one clear error
        raise SetupError(f"EMBEDDING_RUNTIME={runtime}: exporting the model failed ({exc}); "
                         "use EMBEDDING_RUNTIME=torch") from exc


def _write_atomically(path: Path, text: str) -> None:
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _export_fp32(model: Any, out: Path) -> None:
    """The transformer of the sentence-transformers pipeline, inputs to token embeddings, with
    dynamic batch and sequence axes; pooling and normalisation stay in numpy."""
    import torch

    transformer = model[0].auto_model.eval()

    class TokenEmbeddings(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.transformer = transformer

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.transformer(input_ids=input_ids, attention_mask=attention_mask,
                                    token_type_ids=token_type_ids).last_hidden_state

    names = ["input_ids", "attention_mask", "token_type_ids"]
    sample = tuple(torch.ones((2, 16), dtype=torch.long, device=transformer.device)
                   for _ in names)
    axes = {"batch": torch.export.Dim("batch"), "sequence": torch.export.Dim("sequence")}
    shapes = {name: {0: axes["batch"], 1: axes["sequence"]} for name in names}
    # The exporter reports progress on stdout, which belongs to the MCP stdio transport, and
    # its graph optimiser logs every pass at INFO.
    logging.getLogger("onnx_ir").setLevel(logging.WARNING)
    with torch.no_grad(), contextlib.redirect_stdout(sys.stderr):
        torch.onnx.export(TokenEmbeddings().eval(), sample, str(out), input_names=names,
                          output_names=["last_hidden_state"], dynamic_shapes=shapes,
                          opset_version=OPSET, dynamo=True, external_data=False, verbose=False)


def _quantise(fp32: Path, out: Path) -> None:
    """Dynamic int8: weights of the matrix multiplications quantised per output channel
    (per-tensor scales cost far more accuracy on this model)."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(str(fp32), str(out), weight_type=QuantType.QInt8, per_channel=True,
                     op_types_to_quantize=INT8["operators"])
