"""The OpenCode plugin in a process that serves a session for many turns (`opencode serve`, what
the TUI runs; kg_brain/surfaces/opencode/kg-brain.js under Node, against a stand-in service on
127.0.0.1): the commands whose last run failed are read again at each user message, so a command
another session has run and passed since is not held; the session's start context stays the first
text it got; the session's first recall follows its start context."""

from __future__ import annotations

import json
import shutil
import subprocess
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from kg_brain.surfaces.plugin import SOURCE
from tests.support.loopback import serving
from tests.unit.test_plugin_commands import keys

WORKSPACE = "/tmp/ws"
CHECK = "./check.sh"
# Two turns of session s1 (the check's last run failed when it began, and has passed since),
# then a session s2 begun while it fails again: does a bash run of the check get held?
DRIVER = """
const { KgBrain } = await import(process.argv[1])
const config = JSON.parse(process.argv[2])
const hooks = await KgBrain({ client: null, directory: "/tmp/ws" }, undefined, config)
const seen = []
async function turn(sessionID, text, run = true) {
  await hooks["chat.message"]({ sessionID }, { parts: [{ type: "text", text }] })
  const output = { system: ["You are OpenCode."] }
  await hooks["experimental.chat.system.transform"]({ sessionID }, output)
  let held = false
  if (run) try {
    await hooks["tool.execute.before"]({ tool: "bash", sessionID },
                                       { args: { command: "./check.sh" } })
  } catch {
    held = true
  }
  seen.push({ sessionID, system: output.system.slice(1), held })
}
await turn("s1", "What is left to do?", false)
await turn("s1", "Run the checks")
await turn("s2", "Run the checks")
process.stdout.write(JSON.stringify(seen))
"""


def played(answers: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """What each turn carried and held; the actions the stand-in was asked, in order. Its
    `start` answers are `answers`, one per call; every other action answers {}."""
    asked: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            """Quiet."""

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"] or 0))
            action = self.path.rsplit("/", 1)[-1]
            asked.append(action)
            body = json.dumps(answers.pop(0) if action == "start" else {}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed: the plugin runs under OpenCode's JavaScript")
    with serving(Handler) as url:
        config = {"url": url, "start": [], "read_timeout_ms": 5000, "write_timeout_ms": 5000}
        done = subprocess.run([node, "--input-type=module", "-e", DRIVER, str(SOURCE),
                               json.dumps(config)], capture_output=True, text=True, timeout=60,
                              check=True)
    return json.loads(done.stdout), asked


def test_a_command_passed_since_the_session_began_is_not_held_at_its_next_turn() -> None:
    key = keys([CHECK], WORKSPACE)[0]
    warning = {key: "kg-brain: `./check.sh` failed the last time it ran in this project"}
    turns, asked = played([{"text": "# Long-term memory (kg-brain)\nfirst", "known": warning},
                           {"text": "# Long-term memory (kg-brain)\nsecond", "known": {}},
                           {"text": "# Long-term memory (kg-brain)\ns2", "known": warning}])

    assert [t["held"] for t in turns] == [False, False, True]  # s1's first turn runs nothing
    first, later, other = turns
    assert first["system"] == later["system"] == ["# Long-term memory (kg-brain)\nfirst"]
    assert other["system"] == ["# Long-term memory (kg-brain)\ns2"]
    assert asked.count("start") == 3 and asked[:2] == ["start", "recall"]
