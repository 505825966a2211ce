"""End-to-end fixtures: the pinned OpenCode binary (installed from npm when missing; a failed
install fails the tests, it never skips them), scratch git workspaces wired by `kg-brain wire`,
and the notes a project holds in Neo4j, read back with the export statement."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kg_brain.store.db import Database
from kg_brain.store.views import export_notes
from tests.e2e import opencode
from tests.support.brains import make_settings
from tests.support.mcp import REPO, server_env
from tests.support.neo4j import ServerUnderTest


@pytest.fixture(scope="session")
def opencode_binary() -> Path:
    try:
        return opencode.install()
    except (RuntimeError, subprocess.TimeoutExpired) as exc:
        pytest.fail(f"OpenCode {opencode.VERSION} could not be installed: {exc}")


def git_workspace(base: Path, name: str, model_url: str) -> Path:
    """A fresh git repository called `name` whose opencode.json uses the scripted model."""
    root = base / name
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    opencode.write_json(root / "opencode.json", opencode.provider_config(model_url))
    return root


def kg_env(neo4j_server: ServerUnderTest) -> dict[str, str]:
    """What the kg-brain processes get: the test database, this checkout's code, no scheduler,
    and the suite's model cache, whose export is built once (building into an empty cache is
    tested in tests/integration/test_embed_onnx.py); OpenCode's own caches stay in its home."""
    return server_env(neo4j_server, PYTHONPATH=str(REPO),
                      KG_BRAIN_CACHE_DIR=str(make_settings().kg_brain_cache_dir))


def wire(workspace: Path, env: dict[str, str], home: Path, *extra: str) -> str:
    """`kg-brain wire opencode` as a user runs it, with the caches and the config folder
    OpenCode's runs in `home` use (the embedding model it prepares is in KG_BRAIN_CACHE_DIR, which
    the spawned server loads; the launcher and the plugin's settings for this machine go to
    kg-brain's folder in that config folder)."""
    env = {**env, "XDG_CACHE_HOME": str(home / "cache"), "XDG_CONFIG_HOME": str(home / "config")}
    done = subprocess.run([sys.executable, "-m", "kg_brain.surfaces.cli", "wire", "opencode",
                           *extra],
                          cwd=workspace, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def wire_patient(workspace: Path, env: dict[str, str], home: Path, *extra: str) -> str:
    """`kg-brain wire opencode` (its output returned), then OpenCode's wait for the tool list
    raised from its 5 s default: a window served in-process loads the MCP library first, slower
    on a busy machine (its tools/list answered 2.5-4.4 s after its start under a load of 10 on
    2 cores)."""
    out = wire(workspace, env, home, *extra)
    config = json.loads((workspace / "opencode.json").read_text())
    config["mcp"]["kg-brain"]["timeout"] = 120_000
    opencode.write_json(workspace / "opencode.json", config)
    return out


def project_notes(db: Database, project: str) -> list[dict[str, Any]]:
    """Every note stored under `project`, as property dicts."""
    rows = export_notes(db, after="", projects=[project], zk_ids=None, limit=500)
    return [{key: value for key, _, value in row["props"]} for row in rows]
