"""The real OpenCode binary for the end-to-end tests: `opencode-ai` from npm, pinned, installed once
into the kg-brain cache (never the repository), and a runner that keeps OpenCode off the
developer's configuration and off the network.

`python -m tests.e2e.opencode` installs it (what `.ci/run` does before the suite); the tests call
the same function, and fail when npm cannot be reached.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kg_brain.settings import load_settings

VERSION = "1.18.33"
PACKAGE = f"opencode-ai@{VERSION}"
PROVIDER = "scripted"
MODEL = "brain"
# Nothing OpenCode might fetch at run time may reach the network: model catalogue, updates,
# plugins, package installs (npm pointed at a closed loopback port, refused at once: with npm's
# default retries, a run with plugins loaded waits about 70 s on the install of its plugin
# folder's dependencies before the session starts).
OFFLINE = {"OPENCODE_DISABLE_MODELS_FETCH": "1", "OPENCODE_DISABLE_AUTOUPDATE": "1",
           "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1", "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
           "OPENCODE_DISABLE_SHARE": "1", "OPENCODE_DISABLE_CLAUDE_CODE": "1",
           "NPM_CONFIG_REGISTRY": "http://127.0.0.1:9/", "NPM_CONFIG_FETCH_RETRIES": "0"}


def install_dir() -> Path:
    return load_settings().kg_brain_cache_dir / "opencode" / VERSION


def binary() -> Path:
    return install_dir() / "node_modules" / ".bin" / "opencode"


def install() -> Path:
    """The pinned OpenCode binary, installed from npm unless already in the cache."""
    if binary().exists():
        return binary()
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is not installed: the OpenCode end-to-end tests need Node.js")
    staging = install_dir().with_name(f"{VERSION}.partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    done = subprocess.run([npm, "install", "--prefix", str(staging), "--no-audit", "--no-fund",
                           "--no-save", "--loglevel=error", PACKAGE],
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"npm install {PACKAGE} failed:\n{done.stderr[-2000:]}")
    shutil.rmtree(install_dir(), ignore_errors=True)
    staging.replace(install_dir())
    return binary()


def provider_config(base_url: str) -> dict[str, Any]:
    """opencode.json keys that make the scripted endpoint the workspace's model."""
    return {"model": f"{PROVIDER}/{MODEL}",
            "provider": {PROVIDER: {"npm": "@ai-sdk/openai-compatible", "name": "Scripted",
                                    "options": {"baseURL": base_url, "apiKey": "unused"},
                                    "models": {MODEL: {"name": MODEL, "tool_call": True}}}}}


@dataclass(frozen=True)
class Run:
    returncode: int
    stdout: str
    stderr: str
    seconds: float


def isolated_env(home: Path, extra: dict[str, str]) -> dict[str, str]:
    """OpenCode's HOME and XDG folders in `home`: the developer's config and data stay untouched."""
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "TMPDIR")}
    env.update({"HOME": str(home), "XDG_CONFIG_HOME": str(home / "config"),
                "XDG_DATA_HOME": str(home / "data"), "XDG_CACHE_HOME": str(home / "cache"),
                "XDG_STATE_HOME": str(home / "state"), **OFFLINE, **extra})
    return env


def run(workspace: Path, home: Path, message: str, extra_env: dict[str, str],
        timeout_s: float = 300, plugins: bool = False, command: str | None = None,
        resume: bool = False) -> Run:
    """`opencode run MESSAGE` in the workspace, without external plugins unless `plugins` (then
    the workspace's and the global config's plugin folders load; npm stays unreachable); with
    `command`, MESSAGE is the arguments of that slash command; `resume`: `--continue` the last
    session."""
    began = time.monotonic()
    pure = [] if plugins else ["--pure"]
    slash = (["--command", command] if command else []) + (["--continue"] if resume else [])
    done = subprocess.run([str(install()), "run", *pure, *slash, "--print-logs", "--log-level",
                           "INFO", message], cwd=workspace, env=isolated_env(home, extra_env),
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=timeout_s)
    return Run(done.returncode, done.stdout, done.stderr, time.monotonic() - began)


def write_json(path: Path, data: dict[str, Any]) -> None:
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.stdout.write(f"{install()}\n")
