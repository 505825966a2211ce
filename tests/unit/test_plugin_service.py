"""How the OpenCode plugin reaches the service (kg_brain/surfaces/opencode/kg-brain-service.mjs, run
under Node against stand-ins on 127.0.0.1 and on the service's socket): a service that accepts and
does not answer costs one read timeout and one warning, then no call waits until its /health
answers again; a request the service dropped unanswered is sent once more; a start command
that cannot run is one warning, never an exception; a start's output goes to the service log;
the token goes to the service's socket, never to the port."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from kg_brain.base.private import ensure_token
from kg_brain.base.settings import load_settings
from kg_brain.store.localdb import free_port
from kg_brain.surfaces import plugin
from kg_brain.surfaces.plugin import CONNECTION
from tests.support.loopback import imitation
from tests.support.mcp import REPO

READ_TIMEOUT_MS = 400
# Calls a hung service, lets the test turn it into one that answers, waits past a /health
# check, calls again; then, against a closed port, starts the service with `start`.
DRIVER = """
const { Memory } = await import(process.argv[1])
const [config, closed] = JSON.parse(process.argv[2])
const logs = []
const log = (level, message) => logs.push({ level, message })
const memory = new Memory(config, "/tmp/ws", log)
const timed = async (action, write = false) => {
  const began = performance.now()
  const answer = await memory.call(action, {}, write)
  return { ms: Math.round(performance.now() - began), answer }
}
const hung = [await timed("start"), await timed("recall"), await timed("failure", true)]
process.stdout.write(JSON.stringify({ hung, logs: logs.splice(0) }) + "\\n")
await new Promise((resolve) => process.stdin.once("data", resolve))
await new Promise((resolve) => setTimeout(resolve, config.recheck_ms * 2 + 300))
const answering = await timed("start")
const starting = new Memory(closed, "/tmp/ws", log)
const started = [await starting.call("start", {}), await starting.call("recall", {})]
await new Promise((resolve) => setTimeout(resolve, 500))
process.stdout.write(JSON.stringify({ answering, started, logs }) + "\\n")
process.exit(0)
"""


class StandIn:
    """A port that holds every connection unanswered until `answer()`, then answers each request
    `200 {}` (its /health and its actions alike). `drop_first`: the first request it reads, it
    closes unanswered (as a service closes an idle keep-alive connection a request was just sent
    on). `requests`: the request lines it read."""

    def __init__(self, drop_first: bool = False) -> None:
        self.drop_first = drop_first
        self.requests: list[bytes] = []
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.answering = threading.Event()
        self.held: list[socket.socket] = []
        threading.Thread(target=self.accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.listener.getsockname()[1]}"

    def accept(self) -> None:
        while True:
            try:
                conn = self.listener.accept()[0]
            except OSError:
                return
            if not self.answering.is_set():
                self.held.append(conn)
                continue
            with conn:
                request = b""
                while b"\r\n\r\n" not in request:
                    request += conn.recv(65536) or b"\r\n\r\n"
                self.requests.append(request.split(b"\r\n", 1)[0])
                if self.drop_first and len(self.requests) == 1:
                    continue
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                             b"Content-Length: 2\r\nConnection: close\r\n\r\n{}")

    def close(self) -> None:
        self.listener.close()
        for conn in self.held:
            conn.close()


@contextmanager
def stand_in(drop_first: bool = False) -> Iterator[StandIn]:
    server = StandIn(drop_first)
    try:
        yield server
    finally:
        server.close()


def config(url: str, **extra: Any) -> dict[str, Any]:
    return {"url": url, "token_file": "", "start": [], "start_env": {},
            "read_timeout_ms": READ_TIMEOUT_MS, "write_timeout_ms": 3000, "recheck_ms": 300,
            **extra}


@pytest.fixture(scope="module")
def node() -> str:
    found = shutil.which("node")
    if found is None:
        pytest.fail("node is not installed: the plugin's tests run it")
    return found


def test_a_hung_service_costs_one_wait_and_one_warning_until_its_health_answers(
        node: str, tmp_path: Path) -> None:
    log = tmp_path / "service.log"
    closed = config(f"http://127.0.0.1:{free_port()}", log_file=str(log),
                    start=["sh", "-c", "echo started by the plugin"])
    with stand_in() as service:
        proc = subprocess.Popen([node, "--input-type=module", "-e", DRIVER, CONNECTION.as_uri(),
                                 json.dumps([config(service.url), closed])],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert proc.stdin is not None and proc.stdout is not None
        first = json.loads(proc.stdout.readline())
        service.answering.set()
        proc.stdin.write("go\n")
        proc.stdin.flush()
        second = json.loads(proc.stdout.readline())
        proc.wait(timeout=30)

    (read, *after) = first["hung"]
    assert read["answer"] is None and READ_TIMEOUT_MS <= read["ms"] < READ_TIMEOUT_MS + 1000
    assert all(call["answer"] is None and call["ms"] < 100 for call in after), after  # a write too
    assert [entry["level"] for entry in first["logs"]] == ["warn"]
    assert "did not answer within 400 ms" in first["logs"][0]["message"]
    assert second["answering"]["answer"] == {}  # the breaker closed once /health answered
    assert any("answers again" in entry["message"] for entry in second["logs"])
    assert second["started"] == [None, None]  # nothing listened: started once, nothing waited
    assert log.read_text() == "started by the plugin\n"
    assert sum("starting the shared service" in entry["message"] for entry in second["logs"]) == 1


ONE_WRITE = """
const { Memory } = await import(process.argv[1])
const logs = []
const memory = new Memory(JSON.parse(process.argv[2]), "/tmp/ws",
  (level, message) => logs.push({ level, message }))
const answer = await memory.call("failure", { command: "make test" }, true)
process.stdout.write(JSON.stringify({ answer, logs }) + "\\n")
"""


def test_a_write_the_service_dropped_unanswered_is_sent_once_more(node: str) -> None:
    with stand_in(drop_first=True) as service:
        service.answering.set()
        done = subprocess.run([node, "--input-type=module", "-e", ONE_WRITE, CONNECTION.as_uri(),
                               json.dumps(config(service.url))],
                              capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"answer": {}, "logs": []}  # nothing lost, nothing warned
    assert service.requests == [b"POST /plugin/failure HTTP/1.1"] * 2


def test_a_start_command_that_cannot_run_is_one_warning(node: str, tmp_path: Path) -> None:
    moved = str(tmp_path / "moved" / "bin" / "python")
    driver = """
const { Memory } = await import(process.argv[1])
const logs = []
const memory = new Memory(JSON.parse(process.argv[2]), "/tmp/ws", (level, message) =>
  logs.push({ level, message }))
for (const action of ["start", "recall", "failure"]) await memory.call(action, {})
await new Promise((resolve) => setTimeout(resolve, 300))
process.stdout.write(JSON.stringify(logs))
"""
    # A refused connection answers at once; the long timeouts keep a loaded machine's slow first
    # fetch from reading as a hung service, which is another warning.
    settings = config(f"http://127.0.0.1:{free_port()}", start=[moved, "-m",
                                                                "kg_brain.surfaces.cli",
                                                              "service", "start"], wired=True,
                      read_timeout_ms=10_000, write_timeout_ms=10_000)
    done = subprocess.run([node, "--input-type=module", "-e", driver, CONNECTION.as_uri(),
                           json.dumps(settings)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    logs = json.loads(done.stdout)
    assert [entry["level"] for entry in logs] == ["warn"], logs
    assert f"{moved}: ENOENT" in logs[0]["message"]


# Calls three actions, waits for a warning (at most argv[3] ms: the start the first call
# launched ends with one when the port is held), calls once more.
CALLS = """
const { Memory } = await import(process.argv[1])
const logs = []
const memory = new Memory(JSON.parse(process.argv[2]), "/tmp/ws", (level, message) =>
  logs.push({ level, message }))
const answers = []
for (const action of ["start", "recall", "failure"]) answers.push(await memory.call(action, {}))
const until = Date.now() + Number(process.argv[3])
while (Date.now() < until && !logs.some((entry) => entry.level === "warn")) {
  await new Promise((resolve) => setTimeout(resolve, 100))
}
answers.push(await memory.call("recall", {}))
process.stdout.write(JSON.stringify({ answers, logs }))
"""


def machine_settings(tmp_path: Path, port: int) -> dict[str, Any]:
    """What `kg-brain wire opencode` writes for this machine (kg_brain/surfaces/plugin.py), a token
    in its token file."""
    settings = load_settings(_env_file=None, kg_brain_data_dir=tmp_path / "data",
                             kg_brain_http_port=port)
    ensure_token(settings)
    return {**plugin.machine_config(settings, {"PYTHONPATH": str(REPO)}), "wired": True,
            "read_timeout_ms": 3000}


def test_a_stand_in_on_the_port_receives_no_token_and_the_plugin_warns_once(
        node: str, tmp_path: Path) -> None:
    """Another program holds the service's port and answers as kg-brain would: the plugin calls
    the service's socket (nothing there), starts the service once (`kg-brain service start`
    finds the port held and says so) and warns once; the program on the port gets no token."""
    health = {"service": "kg-brain", "neo4j_uri": None, "pid": 1}
    with imitation(health) as (port, seen):
        settings = machine_settings(tmp_path, int(port))
        done = subprocess.run([node, "--input-type=module", "-e", CALLS, CONNECTION.as_uri(),
                               json.dumps(settings), "30000"],
                              capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    token = Path(settings["token_file"]).read_text().strip()
    assert not any("authorization" in request or token in json.dumps(request)
                   for request in seen), seen
    found = json.loads(done.stdout)
    assert found["answers"] == [None] * 4
    warnings = [entry["message"] for entry in found["logs"] if entry["level"] == "warn"]
    assert len(warnings) == 1, found["logs"]
    assert f"port {port} is held by a program that is not your kg-brain service" in warnings[0]
    assert "held by a program that is not your kg-brain service" in \
        Path(settings["log_file"]).read_text()


def test_the_plugin_sends_its_token_to_the_service_socket_only(
        node: str, tmp_path: Path) -> None:
    """The service's socket gets every request, with the token and the service's address as
    its Host; a program on the port gets none."""
    with imitation({}) as (port, on_port):
        settings = machine_settings(tmp_path, int(port))
        with imitation({}, Path(settings["socket"])) as (_, on_socket):
            done = subprocess.run([node, "--input-type=module", "-e", CALLS, CONNECTION.as_uri(),
                                   json.dumps(settings), "0"],
                                  capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"answers": [{}] * 4, "logs": []}
    token = Path(settings["token_file"]).read_text().strip()
    assert [request["request"] for request in on_socket] == [
        f"POST /plugin/{action} HTTP/1.1" for action in ("start", "recall", "failure", "recall")]
    assert all(request["authorization"] == f"Bearer {token}"
               and request["host"] == f"127.0.0.1:{port}" for request in on_socket)
    assert on_port == []
