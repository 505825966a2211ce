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
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from kg_brain.base.settings import load_settings
from kg_brain.store.localdb import free_port

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


class Server:
    """One `opencode serve` process and its HTTP API (the routes the TUI calls): sessions created,
    prompted and aborted, in the workspace it was started in. `log` holds its output."""

    def __init__(self, url: str, log: Path, timeout_s: float) -> None:
        self.url = url
        self.log = log
        self.http = httpx.Client(base_url=url, timeout=timeout_s)

    def create(self, parent: str | None = None) -> str:
        """A new session's id (a child of `parent` when given)."""
        reply = self.http.post("/session", json={"parentID": parent} if parent else {})
        reply.raise_for_status()
        return str(reply.json()["id"])

    def prompt(self, session: str, text: str) -> dict[str, Any]:
        """A user message; answers once the turn is done: the last assistant message (its
        `info.error` set when the turn failed)."""
        reply = self.http.post(f"/session/{session}/message",
                               json={"parts": [{"type": "text", "text": text}]})
        reply.raise_for_status()
        return dict(reply.json())

    def command(self, session: str, name: str, arguments: str) -> dict[str, Any]:
        """A slash command as the TUI sends it (`/name arguments`)."""
        reply = self.http.post(f"/session/{session}/command",
                               json={"command": name, "arguments": arguments})
        reply.raise_for_status()
        return dict(reply.json())

    def abort(self, session: str) -> bool:
        reply = self.http.post(f"/session/{session}/abort")
        reply.raise_for_status()
        return bool(reply.json())

    def busy(self) -> dict[str, Any]:
        """The sessions not idle, with their status."""
        reply = self.http.get("/session/status")
        reply.raise_for_status()
        return {k: v for k, v in reply.json().items() if v.get("type") != "idle"}

    def output(self) -> str:
        return self.log.read_text(errors="replace")


@contextmanager
def serve(workspace: Path, home: Path, extra_env: dict[str, str], plugins: bool = False,
          timeout_s: float = 300) -> Iterator[Server]:
    """`opencode serve` on a free loopback port in the workspace (one process, one instance of
    each plugin, for every session) until the block ends; plugins as for `run`."""
    port = free_port()
    log = workspace.parent / f"opencode-serve-{port}.log"
    with log.open("w") as out:
        proc = subprocess.Popen([str(install()), "serve", *([] if plugins else ["--pure"]),
                                 "--hostname", "127.0.0.1", "--port", str(port), "--print-logs",
                                 "--log-level", "INFO"], cwd=workspace,
                                env=isolated_env(home, extra_env), stdin=subprocess.DEVNULL,
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    server = Server(f"http://127.0.0.1:{port}", log, timeout_s)
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"opencode serve exited {proc.returncode}:\n"
                                   f"{server.output()[-2000:]}")
            try:
                if server.http.get("/global/health", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"opencode serve did not answer:\n{server.output()[-2000:]}")
            time.sleep(0.2)
        yield server
    finally:
        server.http.close()
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)


def write_json(path: Path, data: dict[str, Any]) -> None:
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.stdout.write(f"{install()}\n")
