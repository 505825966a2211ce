"""Wiring a teammate can commit, in the real OpenCode with the kg-brain plugin loaded (a scripted
model that runs bash commands):
(a) the workspace's files, committed and cloned onto a machine where kg-brain was never wired, or
    left on a machine whose installation moved (its interpreter gone), cost one warning in
    OpenCode's log and never the run;
(b) a service that accepts and never answers costs one read timeout: after it, neither a model
    call nor a failing command waits for it (the plugin's circuit breaker);
(c) on the first run after wiring, the plugin and the window's relay both find no service and
    start one: one is started, it writes its pid file and logs to the service log.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx

from kg_brain.store.localdb import free_port
from tests.e2e import opencode
from tests.e2e.conftest import git_workspace, kg_env, wire
from tests.e2e.scripted_model import ScriptedModel, scripted_model
from tests.e2e.test_opencode_plugin import bash, play, plugin_warnings
from tests.support.loopback import hung
from tests.support.mcp import REPO, bearer
from tests.support.neo4j import ServerUnderTest

UNAVAILABLE = "kg-brain memory unavailable"
FAILING = "echo 'error: the build is broken' >&2; exit 1"  # a failure worth recording
WRITE_TIMEOUT_S = 8  # the plugin's default write_timeout_ms


def commit_and_clone(workspace: Path, clone: Path) -> None:
    """`git add -A`, commit, clone: what a teammate gets."""
    git = ["git", "-c", "user.name=dev", "-c", "user.email=dev@example.com"]
    subprocess.run([*git, "-C", str(workspace), "add", "-A"], check=True)
    subprocess.run([*git, "-C", str(workspace), "commit", "-qm", "wired"], check=True)
    subprocess.run(["git", "clone", "-q", str(workspace), str(clone)], check=True)


def move_interpreter(home: Path, moved: str) -> None:
    """This machine's launcher and start command name an interpreter that is gone, as after the
    virtual environment kg-brain was installed in moved."""
    folder = home / "config" / "kg-brain"
    settings = json.loads((folder / "opencode-plugin.json").read_text())
    settings["start"][0] = moved
    opencode.write_json(folder / "opencode-plugin.json", settings)
    launcher = folder / "bin" / "kg-brain"
    launcher.write_text(f"#!/bin/sh\nexec {moved} -m kg_brain.surfaces.cli \"$@\"\n")


def test_a_teammates_clone_and_a_moved_interpreter_cost_one_warning_never_the_run(
        opencode_binary: Path, neo4j_server: ServerUnderTest, project: str,
        tmp_path: Path) -> None:
    env = {**kg_env(neo4j_server), "KG_BRAIN_DATA_DIR": str(tmp_path / "kg-data"),
           "KG_BRAIN_HTTP_PORT": str(free_port())}  # nothing listens: the plugin starts one
    home, teammate = tmp_path / "home", tmp_path / "teammate"
    steps = [bash(FAILING), bash("echo still working")]
    with scripted_model() as (model, url):
        workspace = git_workspace(tmp_path, project, url)
        wire(workspace, env, home)
        clone = tmp_path / "clone" / project
        commit_and_clone(workspace, clone)
        committed = subprocess.run(["git", "-C", str(clone), "ls-files"], capture_output=True,
                                   text=True, check=True).stdout.split()
        texts = "".join((clone / name).read_text() for name in committed)
        move_interpreter(home, str(tmp_path / "moved-venv" / "bin" / "python"))
        moved, moved_results = play(model, steps, workspace, home, env)
        cloned, cloned_results = play(model, steps, clone, teammate, env)

    assert ".opencode/kg-brain.json" in committed and "opencode.json" in committed
    assert str(home) not in texts and str(tmp_path / "kg-data") not in texts
    assert sys.executable not in texts
    for run, results in ((moved, moved_results), (cloned, cloned_results)):
        assert "still working" in results[1]
        assert run.stderr.count(UNAVAILABLE) == 1, plugin_warnings(run)
    assert "ENOENT" in plugin_warnings(moved) and "moved-venv" in plugin_warnings(moved)
    assert "not wired on this machine" in plugin_warnings(cloned)
    assert not (tmp_path / "kg-data" / "state" / "service.pid").exists()


def agent_gaps(model: ScriptedModel) -> list[float]:
    """Seconds between one agent model call and the next (the title request left out): the
    previous answer, OpenCode's work, the tool run and the plugin's hooks before the next call."""
    times = [t for r, t in zip(model.requests, model.arrived, strict=True) if r.get("tools")]
    return [round(b - a, 2) for a, b in zip(times, times[1:], strict=False)]


def test_a_hung_service_costs_one_read_timeout_then_no_call_waits(
        opencode_binary: Path, neo4j_server: ServerUnderTest, project: str,
        tmp_path: Path) -> None:
    env = {**kg_env(neo4j_server), "KG_BRAIN_DATA_DIR": str(tmp_path / "kg-data")}
    home = tmp_path / "home"
    steps = [bash(FAILING), bash(FAILING + " # again"), bash(FAILING + " # once more"),
             bash("echo done")]
    with hung() as port, scripted_model() as (model, url):
        workspace = git_workspace(tmp_path, project, url)
        wire(workspace, env, home, "--url", f"http://127.0.0.1:{port}/mcp")
        config = json.loads((workspace / "opencode.json").read_text())
        config["mcp"]["kg-brain"]["enabled"] = False  # the plugin is under test, not OpenCode's
        opencode.write_json(workspace / "opencode.json", config)  # own wait for the MCP server
        model.arrived.clear()
        run, results = play(model, steps, workspace, home, env)

    gaps = agent_gaps(model)
    assert "done" in results[3] and len(gaps) == 4
    assert run.stderr.count(UNAVAILABLE) == 1, plugin_warnings(run)
    assert "did not answer within 1500 ms" in plugin_warnings(run)
    # Without the breaker every model call waited for the start context (1.5 s) and every
    # failing command for its write (8 s): each of the three gaps after one took >= 9.5 s, about
    # 10 s beside a run whose memory refused at once (under a load of 19 on 2 cores). With it,
    # no gap holds a wait: the one read timeout came before the first call.
    assert max(gaps) < WRITE_TIMEOUT_S and sum(gaps) < 1.5 * WRITE_TIMEOUT_S, gaps


def test_the_plugin_and_the_relay_racing_start_one_service_that_logs(
        opencode_binary: Path, neo4j_server: ServerUnderTest, project: str,
        tmp_path: Path) -> None:
    port = free_port()
    env = {**kg_env(neo4j_server), "KG_BRAIN_DATA_DIR": str(tmp_path / "kg-data"),
           "KG_BRAIN_HTTP_PORT": str(port), "KG_BRAIN_SERVICE": "true",
           "KG_BRAIN_SERVICE_START": "true"}
    home = tmp_path / "home"
    state = tmp_path / "kg-data" / "state"
    try:
        with scripted_model() as (model, url):
            workspace = git_workspace(tmp_path, project, url)
            wire(workspace, env, home)
            run, _ = play(model, [bash("echo hello")], workspace, home, env)
        pid = answering_pid(env)
        log = (state / "service.log").read_text()
        assert log.count("In each workspace: kg-brain wire") == 1, log
        assert "cannot listen" not in log
        assert json.loads((state / "service.pid").read_text())["pid"] == pid
        assert [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in (1, 2)] == \
            [str(state / "service.log")] * 2
        # The plugin's first call comes while the relay's service loads (seconds), so it finds
        # nothing listening and starts one too: that start waits for the relay's service and says
        # so in the service log. (Should the service listen first, the plugin starts none.)
        if "starting the shared service" in run.stderr:
            assert f"running (pid {pid})" in log, log
    finally:
        subprocess.run([*KG, "service", "stop"], env=env, cwd=REPO, timeout=120, check=False,
                       capture_output=True)


KG = [sys.executable, "-m", "kg_brain.surfaces.cli"]


def answering_pid(env: dict[str, str], wait_s: float = 120) -> int:
    """The pid the service on the environment's port reports, once it answers."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            reply = httpx.get(f"http://127.0.0.1:{env['KG_BRAIN_HTTP_PORT']}/health",
                              headers=bearer(env), timeout=2)
            return int(reply.json()["pid"])
        except (httpx.TransportError, AssertionError):
            assert time.monotonic() < deadline, "no service answered"
            time.sleep(0.5)
