"""The shared service's lifecycle: the service a window starts outlives it (detached: no pipe,
session or parent of the window's), answers the next window, stops on `kg-brain service stop`
or after the idle time, and a window whose service went away carries on with a new one.
Every test has its own data folder and port, and stops every service it started."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from kg_brain.store.localdb import free_port
from kg_brain.surfaces.service import PORT_HELD
from tests.mcp.test_relay import NOTE, followed, relay_env, saved_id, window
from tests.mcp.test_stdio import workspace
from tests.support.loopback import imitation
from tests.support.mcp import REPO, bearer
from tests.support.neo4j import ServerUnderTest

KG = [sys.executable, "-m", "kg_brain.surfaces.cli"]


def kg(env: dict[str, str], *args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*KG, *args], env=env, cwd=REPO, capture_output=True, text=True,
                          timeout=timeout)


def service_pid(env: dict[str, str]) -> int | None:
    """The pid the service on the environment's port reports; None while none answers (or it
    has made no token yet)."""
    try:
        reply = httpx.get(f"http://127.0.0.1:{env['KG_BRAIN_HTTP_PORT']}/health",
                          headers=bearer(env), timeout=2)
        return int(reply.json()["pid"])
    except (httpx.TransportError, AssertionError):
        return None


def wait_for(check: object, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"timed out waiting for {check}"
        time.sleep(0.3)


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return Path(f"/proc/{pid}/status").read_text().count("zombie") > 0


@pytest.fixture
def env(neo4j_server: ServerUnderTest, tmp_path: Path) -> Iterator[dict[str, str]]:
    """A relay environment that starts services, with a data folder and a port of its own;
    whatever service answers on that port at the end is stopped."""
    found = {**relay_env(neo4j_server, free_port(), tmp_path / "data"),
             "KG_BRAIN_SERVICE_START": "true"}
    yield found
    pid = service_pid(found)
    if pid is not None:
        kg(found, "service", "stop")


def test_the_service_a_window_starts_is_detached_and_outlives_it(
        env: dict[str, str], project: str, tmp_path: Path) -> None:
    here = workspace(tmp_path, project)
    with window(env, here) as first:
        first.initialize()
        saved = first.call_tool("add_memory", {"content": NOTE})["result"]["structuredContent"]
        wait_for(lambda: service_pid(env) is not None)
        pid = service_pid(env)
        assert pid is not None
        status = dict(line.split(":\t") for line in
                      Path(f"/proc/{pid}/status").read_text().splitlines() if ":\t" in line)
        assert int(status["PPid"]) != first.proc.pid
        assert os.getsid(pid) != os.getsid(first.proc.pid) and os.getpgid(pid) == os.getsid(pid)
        state = tmp_path / "data" / "state"
        assert [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in (0, 1, 2)] == \
            ["/dev/null", str(state / "service.log"), str(state / "service.log")]
        assert json.loads((state / "service.pid").read_text())["pid"] == pid
        with window(env, here) as second:  # forwarded while the first is still open
            second.initialize()
            assert second.call_tool("get_inbox", {"limit": 1})["result"][
                "structuredContent"]["project"] == project
            first.proc.kill()  # as a client ends a window, in the middle of the second's
            first.proc.wait(timeout=30)
            assert service_pid(env) == pid
            found = second.call_tool("search_memory", {"query": "what forwards stdio windows?"})
            assert found["result"]["structuredContent"]["hits"][0]["zk_id"] == saved["zk_id"]
            assert "forwarding to the shared kg-brain service" in second.close()
    stopped = kg(env, "service", "stop")
    assert stopped.returncode == 0 and f"stopped (pid {pid})" in stopped.stdout
    assert gone(pid) and not (state / "service.pid").exists()
    assert list(state.glob("*.sock")) == []  # its socket went with it
    assert "not running" in kg(env, "service", "stop").stdout


def test_a_window_whose_service_went_away_carries_on_with_a_new_one(
        env: dict[str, str], project: str, tmp_path: Path) -> None:
    assert kg(env, "service", "start").returncode == 0
    old = service_pid(env)
    with window(env, workspace(tmp_path, project)) as win:
        win.initialize()
        saved = win.call_tool("add_memory", {"content": NOTE})["result"]["structuredContent"]
        assert saved["project"] == project
        assert kg(env, "service", "stop").returncode == 0
        assert service_pid(env) is None
        found = win.request("tools/call", {"name": "search_memory", "arguments": {
            "query": "what forwards stdio windows?"}}, timeout=240)
        answer = found["result"]["structuredContent"]
        assert answer["project"] == project and answer["hits"][0]["zk_id"] == saved["zk_id"]
        later = saved_id(win, "The relay sends a request again only if it never arrived.")
        assert followed(win, later)[0] == [saved["zk_id"]]  # the window's session outlives it
        log = win.close()
    assert service_pid(env) not in (None, old)
    assert "continuing on the one now at" in log


def test_the_service_stops_after_the_idle_time_but_not_while_a_window_is_open(
        env: dict[str, str], project: str, tmp_path: Path) -> None:
    env = {**env, "KG_BRAIN_SERVICE_IDLE_S": "10"}
    assert kg(env, "service", "start").returncode == 0
    pid = service_pid(env)
    assert pid is not None
    with window(env, workspace(tmp_path, project)) as win:
        win.initialize()
        time.sleep(15)  # the window's open stream is activity
        assert service_pid(env) == pid
        assert win.call_tool("get_inbox", {"limit": 1})["result"]["structuredContent"][
            "project"] == project
        assert "forwarding to the shared kg-brain service" in win.close()
    wait_for(lambda: gone(pid), 60)
    assert "no request for 10 s: stopping" in (tmp_path / "data" / "state" / "service.log"
                                              ).read_text()


def test_clients_racing_to_start_the_service_start_one_that_logs_and_keeps_its_pid(
        env: dict[str, str], tmp_path: Path) -> None:
    """Four `kg-brain service start` at once (as the plugin and every window's relay start it):
    one service is started, the others wait for it; it logs to the service log and its pid file
    names it."""
    starters = [subprocess.Popen([*KG, "service", "start"], env=env, cwd=REPO, text=True,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                for _ in range(4)]
    outputs = [starter.communicate(timeout=240) for starter in starters]
    pid = service_pid(env)
    assert pid is not None
    assert [starter.returncode for starter in starters] == [0] * 4, outputs
    assert all(f"running (pid {pid})" in out for out, _ in outputs)
    state = tmp_path / "data" / "state"
    log = (state / "service.log").read_text()
    assert log.count("In each workspace: kg-brain wire") == 1, log  # one service ever started
    assert "cannot listen" not in log
    # the three others waited for the start under way, found the port taken, or (started
    # late on a loaded machine) found the service answering
    assert sum("being started by another client" in err or "up already" in err
               or out.startswith("already running") for out, err in outputs) == 3
    assert json.loads((state / "service.pid").read_text()) == {
        "pid": pid, "port": int(env["KG_BRAIN_HTTP_PORT"])}
    assert os.readlink(f"/proc/{pid}/fd/2") == str(state / "service.log")
    # its clients' way in: a socket only this user can reach
    way_in = state / f"service-{env['KG_BRAIN_HTTP_PORT']}.sock"
    assert stat.S_ISSOCK(way_in.stat().st_mode) and stat.S_IMODE(way_in.stat().st_mode) == 0o600
    assert stat.S_IMODE(state.stat().st_mode) == 0o700


def test_a_service_started_beside_a_running_one_stops_before_touching_its_pid_file(
        env: dict[str, str], tmp_path: Path) -> None:
    assert kg(env, "service", "start").returncode == 0
    pid = service_pid(env)
    pid_file = tmp_path / "data" / "state" / "service.pid"
    recorded = pid_file.read_text()
    second = kg(env, "serve", "--http", timeout=120)
    assert second.returncode == PORT_HELD and "cannot listen on" in second.stderr
    assert "In each workspace" not in second.stdout  # it stopped before serving anything
    assert pid_file.read_text() == recorded and service_pid(env) == pid


def test_install_writes_a_user_unit_whose_command_serves(
        env: dict[str, str], tmp_path: Path) -> None:
    env = {**env, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    done = kg(env, "service", "install", "--platform", "systemd")
    unit = tmp_path / "config" / "systemd" / "user" / "kg-brain.service"
    assert done.returncode == 0 and str(unit) in done.stdout
    assert "systemctl --user enable --now kg-brain.service" in done.stdout
    lines = dict(line.split("=", 1) for line in unit.read_text().splitlines() if "=" in line)
    assert lines["WantedBy"] == "default.target" and lines["Restart"] == "on-failure"
    # never restarted while another process holds the port, nor more than 5 times in 10 min
    assert lines["RestartPreventExitStatus"] == str(PORT_HELD)
    assert (lines["StartLimitIntervalSec"], lines["StartLimitBurst"]) == ("600", "5")
    proc = subprocess.Popen(lines["ExecStart"].split(), env=env, cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: service_pid(env) == proc.pid)
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    agent = kg({**env, "HOME": str(tmp_path)}, "service", "install", "--platform", "launchd")
    plist = tmp_path / "Library" / "LaunchAgents" / "dev.kg-brain.service.plist"
    assert agent.returncode == 0 and f"launchctl load -w {plist}" in agent.stdout
    assert "<string>serve</string>" in plist.read_text()
    assert "<key>KeepAlive</key><dict><key>Crashed</key><true/></dict>" in plist.read_text()


def test_a_start_beside_a_program_holding_the_port_says_so_and_starts_nothing(
        env: dict[str, str], tmp_path: Path) -> None:
    with imitation({"service": "kg-brain", "neo4j_uri": env["NEO4J_URI"], "pid": 1}) as (
            port, seen):
        done = kg({**env, "KG_BRAIN_HTTP_PORT": str(port)}, "service", "start", timeout=60)
    assert done.returncode == PORT_HELD, done
    assert f"port {port} is held by a program that is not your kg-brain service" in done.stdout
    assert seen == [] and not (tmp_path / "data" / "state" / "service.log").exists()
