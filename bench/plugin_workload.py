"""What the OpenCode plugin writes and holds on its own over a scripted multi-session workload,
run through the real `opencode` binary and the real plugin, the agent played by a scripted
OpenAI-compatible model on 127.0.0.1 (tests/e2e/scripted_model.py).

    python -m bench.plugin_workload [--small] [--out docs/bench/plugin_workload.json]

Ten sessions of three to five turns (each turn one `opencode run`, later turns `--continue`):
checks failing and fixed, a regression left failing and held in the next session, searches and
comparisons with no match, decisions by `/remember`, a subagent's failing command, a flaky run.
Reports the notes written per kind, live handoffs per OpenCode session, each hold with its cost
(its warning's bytes and the model call it adds) and the command's next outcome, the start
context's bytes and how often it changed within a session, OpenCode's title requests carrying
memory, and each plugin action's latency as the plugin saw it (through a timing relay) beside a
`/health` round trip through the same relay. `--small` runs the three sessions of the hold path
and the subagent's (CI runs it as a test). Starts its own `kg-brain serve --http`; the bench-*
project is deleted afterwards. Needs Node.js and OpenCode (`python -m tests.e2e.opencode`
installs it).
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from threading import Thread
from typing import Any

import httpx

from kg_brain.db import Database
from kg_brain.store.views import export_notes
from tests.e2e import opencode
from tests.e2e.scripted_model import ScriptedModel, Step, content_text, scripted_model

REPO = Path(__file__).resolve().parents[1]
MEMORY_HEADER = "# Long-term memory (kg-brain"
RECALL_HEADER = "# kg-brain: stored notes relevant to this message"
HELD = "kg-brain held this command"
BUGGY = "def split(total, n):\n    return [total // n] * n\n"
FIXED = ("def split(total, n):\n    share, left = divmod(total, n)\n"
         "    return [share + (1 if i < left else 0) for i in range(n)]\n")
CHECK = "./check.sh"
FILES = {
    "money.py": BUGGY,
    "check.sh": "#!/bin/sh\npython3 -c \"import money; assert sum(money.split(1000, 3)) == 1000, "
                "'split lost a cent'\"\n",
    "flaky.sh": "#!/bin/sh\nif [ -f .flaky-seen ]; then echo ok; exit 0; fi\ntouch .flaky-seen\n"
                "echo 'error: upstream timed out after 5s' >&2\nexit 1\n",
    "config/dev.ini": "[server]\nport = 8080\n", "config/prod.ini": "[server]\nport = 8443\n",
}
DOCS_MAKEFILE = "html:\n\tmkdir -p _build && echo built > _build/index.html\n"


def bash(command: str) -> Step:
    return Step("bash", {"command": command, "description": "run a command"})


@dataclass
class Turn:
    message: str
    steps: list[Step] = field(default_factory=list)


@dataclass
class Session:
    name: str
    turns: list[Turn]
    scripts: dict[str, list[Step]] = field(default_factory=dict)


def workload(ws: Path) -> list[Session]:
    """The sessions in order; each turn's steps are new ones (a continued conversation replays
    the earlier turns' results)."""
    def write(name: str, text: str) -> list[Step]:
        return [Step("read", {"filePath": str(ws / name)}),
                Step("write", {"filePath": str(ws / name), "content": text})]

    return [
        Session("money-fix", [
            Turn("Run the checks", [bash(CHECK)]),
            Turn("Fix the split so that no cent is lost", [*write("money.py", FIXED), bash(CHECK)]),
            Turn("/remember Money is split in integer cents, never floats: a float split lost a "
                 "cent on three-way payments."),
            Turn("Look for leftover TODOs", [bash("grep -rn TODO --include=*.py .")])]),
        Session("searches", [
            Turn("Is there a build artifact yet?", [bash("test -f build/app.js")]),
            Turn("Do the two configs differ?", [bash("diff config/dev.ini config/prod.ini")]),
            Turn("Is the tree clean?", [bash("git diff --exit-code")])]),
        Session("regression", [
            Turn("Make split simpler", [*write("money.py", BUGGY), bash(CHECK)]),
            Turn("Is the staging API up?", [bash("curl -sf http://127.0.0.1:9/health")]),
            Turn("Stop here for today")]),
        Session("held", [
            Turn("Run the checks", [bash(CHECK), bash(CHECK)]),
            Turn("Fix it again", [*write("money.py", FIXED), bash(CHECK)]),
            Turn("Should money be floats or integer cents? Why?")]),
        Session("subagent", [
            Turn("Have a subagent lint money.py", [Step("task", {
                "description": "lint money.py", "subagent_type": "general",
                "prompt": "SUBAGENT-LINT: lint money.py with pyflakes"})]),
            Turn("Compile it instead", [bash("python3 -m py_compile money.py")]),
            Turn("Note what is left")],
            scripts={"SUBAGENT-LINT": [bash("python3 -m pyflakes money.py")]}),
        Session("flaky", [
            Turn("Run the integration script", [bash("./flaky.sh")]),
            Turn("Run it again", [bash("./flaky.sh")]),
            Turn("Any FIXMEs?", [bash("grep -rn FIXME --include=*.py .")])]),
        Session("decisions", [
            Turn("/remember Invoice PDFs are rendered by weasyprint in the worker queue, never in "
                 "the web process."),
            Turn("Where are the invoice PDFs rendered?"),
            Turn("Run the checks", [bash(CHECK)])]),
        Session("docs", [
            Turn("Build the docs", [bash("make -C docs html")]),
            Turn("Add a docs Makefile and build", [
                Step("write", {"filePath": str(ws / "docs" / "Makefile"),
                               "content": DOCS_MAKEFILE}), bash("make -C docs html")]),
            Turn("What changed?", [bash("git status --short")])]),
        Session("searches-2", [
            Turn("Where is retry_budget set?", [bash("grep -rn retry_budget .")]),
            Turn("Is there a dist folder?", [bash("test -d dist")]),
            Turn("Is a worker running?", [bash("pgrep -f kg-brain-bench-no-such-worker")])]),
        Session("wrap-up", [
            Turn("Run the checks and the docs", [bash(CHECK), bash("make -C docs html")]),
            Turn("How is money split?"),
            Turn("Summarise the state of the project")]),
    ]


SMALL = ("money-fix", "regression", "held", "subagent")


class Relay:
    """A timing relay in front of the service: what each plugin action took as the plugin saw
    it (plus one loopback hop), and /health through the same hop."""

    def __init__(self, target: str) -> None:
        self.target = target
        self.samples: dict[str, list[float]] = {}
        self.unread: list[str] = []  # actions whose answer came after the plugin's process ended
        self.client = httpx.Client(timeout=120)
        relay = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                """Quiet."""

            def do_GET(self) -> None:
                self.forward("GET", b"")

            def do_POST(self) -> None:
                self.forward("POST", self.rfile.read(int(self.headers["Content-Length"] or 0)))

            def forward(self, method: str, body: bytes) -> None:
                began = time.perf_counter()
                reply = relay.client.request(method, relay.target + self.path, content=body,
                                             headers={k: v for k, v in self.headers.items()
                                                      if k.lower() in ("authorization",
                                                                       "content-type")})
                ms = (time.perf_counter() - began) * 1000
                relay.samples.setdefault(self.path.rsplit("/", 1)[-1], []).append(ms)
                self.send_response(reply.status_code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(reply.content)))
                self.end_headers()
                try:
                    self.wfile.write(reply.content)
                except BrokenPipeError:  # the plugin's process ended first: the write is done
                    relay.unread.append(self.path.rsplit("/", 1)[-1])

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.client.close()


def start_memory(system: str) -> str:
    """The start context in a system prompt (without the turn's recall)."""
    if MEMORY_HEADER not in system:
        return ""
    return system[system.index(MEMORY_HEADER):].split(RECALL_HEADER)[0].strip()


def prepare(ws: Path, env: dict[str, str], home: Path, mcp_url: str, relay: str,
            model_url: str) -> None:
    ws.mkdir(parents=True)
    for name, text in FILES.items():
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_text(text)
    for script in ("check.sh", "flaky.sh"):
        (ws / script).chmod(0o755)
    (ws / ".gitignore").write_text(".flaky-seen\n_build/\n.opencode/\nopencode.json\n")
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    subprocess.run(["git", "-c", "user.email=b@e", "-c", "user.name=bench", "add", "-A"], cwd=ws,
                   check=True)
    subprocess.run(["git", "-c", "user.email=b@e", "-c", "user.name=bench", "commit", "-qm",
                    "start"], cwd=ws, check=True)
    opencode.write_json(ws / "opencode.json", opencode.provider_config(model_url))
    wired = {**env, "XDG_CACHE_HOME": str(home / "cache"), "XDG_CONFIG_HOME": str(home / "config"),
             "PYTHONPATH": str(REPO)}  # this checkout's plugin
    subprocess.run([sys.executable, "-m", "kg_brain.cli", "wire", "opencode", "--url", mcp_url],
                   cwd=ws, env=wired, capture_output=True, check=True, timeout=300)
    settings = ws / ".opencode" / "kg-brain.json"
    config = json.loads(settings.read_text())
    config.update(url=relay, read_timeout_ms=60_000, write_timeout_ms=60_000)
    opencode.write_json(settings, config)


def play(model: ScriptedModel, session: Session, ws: Path, home: Path,
         env: dict[str, str]) -> dict[str, Any]:
    """The session's turns; what its model calls carried."""
    model.scripts = session.scripts
    steps: list[Step] = []
    starts: list[str] = []
    titles_with_memory = 0
    holds: list[dict[str, Any]] = []
    seen: set[int] = set()
    for number, turn in enumerate(session.turns):
        steps += turn.steps
        model.steps = list(steps)
        model.requests.clear()
        run = opencode.run(ws, home, turn.message, env, plugins=True, resume=number > 0)
        if run.returncode != 0:
            raise RuntimeError(f"{session.name} turn {number}: {run.stderr[-2000:]}")
        agent = [r for r in model.requests if r.get("tools")]
        titles_with_memory += sum(1 for r in model.requests if not r.get("tools") and any(
            MEMORY_HEADER in content_text(m["content"]) for m in r["messages"]))
        for request in agent:
            system = "\n".join(content_text(m["content"]) for m in request["messages"]
                               if m["role"] == "system")
            starts.append(start_memory(system))
        holds += held(agent, seen)
    return {"session": session.name, "turns": len(session.turns), "starts": starts,
            "titles_with_memory": titles_with_memory, "holds": holds}


def held(agent: list[dict[str, Any]], seen: set[int]) -> list[dict[str, Any]]:
    """Holds new in this turn's model calls (`seen`: indexes of the conversation's tool results
    counted already): the warning's bytes, the model call it added (its request's bytes) and
    the result of the command's next run."""
    if not agent:
        return []
    def results(request: dict[str, Any]) -> list[str]:
        return [content_text(m["content"]) for m in request["messages"] if m["role"] == "tool"]

    found: list[dict[str, Any]] = []
    last = results(agent[-1])
    for index, result in enumerate(last):
        if HELD not in result or index in seen:
            continue
        seen.add(index)
        added = next((r for r in agent if len(results(r)) == index + 1), agent[-1])
        found.append({"warning_bytes": len(result.encode()),
                      "added_call_bytes": len(json.dumps(added).encode()),
                      "next_run": last[index + 1][:160] if index + 1 < len(last) else ""})
    return found


def notes_of(db: Database, project: str) -> list[dict[str, Any]]:
    rows = export_notes(db, after="", projects=[project], zk_ids=None, limit=2_000)
    return [{key: value for key, _, value in row["props"]} for row in rows]


def summarise(played: list[dict[str, Any]], notes: list[dict[str, Any]], relay: Relay,
              health: list[float]) -> dict[str, Any]:
    live = [n for n in notes if n.get("memory_type") != "archived"]
    handoffs = Counter(n.get("session_id") for n in live if n["note_kind"] == "session_summary")
    searches = ("grep", "test -f", "test -d", "diff ", "git diff", "pgrep")
    search_mistakes = [n["title"] for n in notes if n["note_kind"] == "mistake"
                       and any(f"`{s}" in n["content"][:80] for s in searches)]
    holds = [h | {"session": p["session"]} for p in played for h in p["holds"]]

    def ms(values: list[float]) -> dict[str, float]:
        ordered = sorted(values)
        return {"p50_ms": round(statistics.median(ordered), 1),
                "p95_ms": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 1),
                "n": len(ordered)}

    return {
        "sessions": len(played), "turns": sum(p["turns"] for p in played),
        "notes_written": dict(Counter(n["note_kind"] for n in notes)),
        "notes_live": dict(Counter(n["note_kind"] for n in live)),
        "handoffs_per_session": {"sessions_with_one": sum(1 for c in handoffs.values() if c == 1),
                                 "max_live": max(handoffs.values(), default=0),
                                 "live_summaries": sum(handoffs.values())},
        "mistakes_from_searches": search_mistakes,
        "mistakes": sorted(n["title"] for n in notes if n["note_kind"] == "mistake"),
        "blockers_in_handoffs": sorted(line.strip("- ") for n in live
                                       if n["note_kind"] == "session_summary"
                                       for line in n["content"].splitlines()
                                       if "still fails" in line),
        "holds": holds,
        "start_context": [{"session": p["session"], "bytes": max(map(len, p["starts"]), default=0),
                           "model_calls": len(p["starts"]),
                           "changes": len(set(p["starts"])) - 1 if p["starts"] else 0}
                          for p in played],
        "title_requests_with_memory": sum(p["titles_with_memory"] for p in played),
        "answers_unread": dict(Counter(relay.unread)),
        "latency": {action: ms(v) for action, v in sorted(relay.samples.items())
                    if action != "health"} | {"health_floor": ms(health)},
        "cpus": os.cpu_count(), "load_avg_1m": round(os.getloadavg()[0], 2),
    }


def run(mcp_url: str, env: dict[str, str], db: Database, base: Path, project: str,
        small: bool) -> dict[str, Any]:
    """The workload against the service at `mcp_url` (its `env` for the wiring), in a workspace
    `base/project`; the summary."""
    relay = Relay(mcp_url.rsplit("/mcp", 1)[0])
    ws, home = base / project, base / "home"
    played = []
    try:
        with scripted_model() as (model, model_url):
            prepare(ws, env, home, mcp_url, relay.url, model_url)
            token = {k: v for k, v in env.items() if k == "KG_BRAIN_HTTP_TOKEN"}  # OpenCode's
            for session in workload(ws):
                if not small or session.name in SMALL:
                    played.append(play(model, session, ws, home, token))
        time.sleep(1)  # the last idle's handoff
        token = {"Authorization": f"Bearer {env.get('KG_BRAIN_HTTP_TOKEN', '')}"}
        health = []
        for _ in range(30):
            began = time.perf_counter()
            httpx.get(f"{relay.url}/health", headers=token, timeout=30)
            health.append((time.perf_counter() - began) * 1000)
        return summarise(played, notes_of(db, project), relay, health)
    finally:
        relay.close()


@contextmanager
def service(env: dict[str, str]) -> Iterator[str]:
    from bench.cold_start import start_service

    proc = start_service(env)
    try:
        yield f"http://127.0.0.1:{env['KG_BRAIN_HTTP_PORT']}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def main(argv: list[str] | None = None) -> int:
    from bench.common import BENCH_PREFIX, delete_bench_project, emit_result
    from kg_brain.app import Brain
    from kg_brain.localdb import free_port
    from kg_brain.settings import load_settings

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true")
    parser.add_argument("--out", type=Path, default=Path("plugin_workload.json"))
    args = parser.parse_args(argv)
    env = {**os.environ, "SCHEDULER_IN_SERVER": "false", "KG_BRAIN_SERVICE_START": "false",
           "KG_BRAIN_HTTP_PORT": str(free_port()), "KG_BRAIN_HTTP_TOKEN": secrets.token_urlsafe(24)}
    base = Path(tempfile.mkdtemp())
    project = f"{BENCH_PREFIX}workload-{uuid.uuid4().hex[:8]}"
    brain = Brain(load_settings())
    try:
        with service(env) as mcp_url:
            emit_result(run(mcp_url, env, brain.db, base, project, args.small), args.out)
    finally:
        delete_bench_project(brain.db, project)
        brain.close()
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
