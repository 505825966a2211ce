"""What the OpenCode plugin writes and holds on its own over a scripted multi-session workload,
run through the real `opencode` binary and the real plugin, the agent played by a scripted
OpenAI-compatible model on 127.0.0.1 (tests/e2e/scripted_model.py).

    python -m bench.plugin_workload [--small] [--mode run|serve] [--out FILE]

Ten sessions of three to five turns (bench/plugin_workload_data.py): checks failing and fixed, a
regression left failing and held in the next session, searches and comparisons with no match,
decisions by `/remember`, a subagent's failing command, a flaky run. `--mode run` (the default):
each turn one `opencode run`, a session's later turns `--continue`; `--mode serve`: one
`opencode serve` (what the TUI runs) for the whole workload, each session created over its HTTP
API and each turn a message to it. Reports the notes written per kind, live handoffs per OpenCode
session (under serve, each session's own, by its id) and the handoff writes and revisions, each
hold with its command and cost (its warning's bytes and the model call it adds) and the command's
next outcome, the start context's bytes and how often it changed within a session, OpenCode's
title requests and those carrying memory, and each plugin action's latency as the plugin saw it
(through a timing relay) beside a `/health` round trip through the same relay. `--small` runs the
three sessions of the hold path and the subagent's (CI runs it as a test in each mode). Starts its
own `kg-brain serve --http`; the bench-* project is deleted afterwards. Needs Node.js and
OpenCode (`python -m tests.e2e.opencode` installs it).
"""

from __future__ import annotations

import argparse
import json
import os
import re
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
from pathlib import Path
from typing import Any

import httpx

from bench.plugin_relay import Relay
from bench.plugin_workload_data import FILES, SMALL, Session, workload
from kg_brain.root.app import Brain
from kg_brain.store.db import Database
from kg_brain.store.views import export_notes
from tests.e2e import opencode
from tests.e2e.scripted_model import ScriptedModel, Step, content_text, scripted_model

REPO = Path(__file__).resolve().parents[1]
MEMORY_HEADER = "# Long-term memory (kg-brain"
RECALL_HEADER = "# kg-brain: stored notes relevant to this message"
HELD = "kg-brain held this command"


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
    subprocess.run([sys.executable, "-m", "kg_brain.surfaces.cli", "wire", "opencode", "--url",
                    mcp_url],
                   cwd=ws, env=wired, capture_output=True, check=True, timeout=300)
    settings = ws / ".opencode" / "kg-brain.json"
    config = json.loads(settings.read_text())
    config.update(url=relay, read_timeout_ms=60_000, write_timeout_ms=60_000)
    opencode.write_json(settings, config)


class Runs:
    """Each turn one `opencode run`, a session's later turns `--continue` it: a new OpenCode
    process, and plugin instance, per turn."""

    mode = "run"

    def __init__(self, ws: Path, home: Path, env: dict[str, str]) -> None:
        self.ws, self.home, self.env = ws, home, env

    def turn(self, session: str, number: int, message: str) -> str | None:
        """Plays one turn; the OpenCode session's id when known."""
        run = opencode.run(self.ws, self.home, message, self.env, plugins=True,
                           resume=number > 0)
        if run.returncode != 0:
            raise RuntimeError(f"{session} turn {number}: {run.stderr[-2000:]}")
        return None


class Served:
    """Every session in one `opencode serve` (what the TUI runs: one process, one plugin
    instance), created over its HTTP API (a name played before: that session again, picked in
    the TUI's session list); each turn one message, a `/remember` the command as the TUI sends
    it; the next turn once the session is idle and its handoff written, as a user reads the
    answer before typing again."""

    mode = "serve"

    def __init__(self, server: opencode.Server, relay: Relay) -> None:
        self.server, self.relay = server, relay
        self.ids: dict[str, str] = {}

    def turn(self, session: str, number: int, message: str) -> str | None:
        if session not in self.ids:
            self.ids[session] = self.server.create()
        sid = self.ids[session]
        typed = re.fullmatch(r"/(\w+)\s+(.*)", message, re.DOTALL)
        answer = (self.server.command(sid, typed[1], typed[2]) if typed
                  else self.server.prompt(sid, message))
        if answer["info"].get("error"):
            raise RuntimeError(f"{session} turn {number}: {answer['info']['error']}\n"
                               f"{self.server.output()[-2000:]}")
        deadline = time.monotonic() + 60
        while self.server.busy() and time.monotonic() < deadline:
            time.sleep(0.1)
        self.relay.settle()
        return sid


def play(model: ScriptedModel, session: Session, driver: Runs | Served) -> dict[str, Any]:
    """The session's turns; what its model calls carried."""
    model.scripts = session.scripts
    steps: list[Step] = []
    starts: list[str] = []
    titles = titles_with_memory = 0
    holds: list[dict[str, Any]] = []
    seen: set[int] = set()
    sid = None
    for number, turn in enumerate(session.turns):
        steps += turn.steps
        model.steps = list(steps)
        model.requests.clear()
        sid = driver.turn(session.name, number, turn.message)
        agent = [r for r in model.requests if r.get("tools")]
        untooled = [r for r in model.requests if not r.get("tools")]
        titles += len(untooled)
        titles_with_memory += sum(1 for r in untooled if any(
            MEMORY_HEADER in content_text(m["content"]) for m in r["messages"]))
        for request in agent:
            system = "\n".join(content_text(m["content"]) for m in request["messages"]
                               if m["role"] == "system")
            starts.append(start_memory(system))
        holds += held(agent, seen)
    first = next(t.message for t in session.turns if not t.message.startswith("/"))
    return {"session": session.name, "id": sid, "turns": len(session.turns), "starts": starts,
            "first_request": first, "requests": [t.message for t in session.turns],
            "titles": titles, "titles_with_memory": titles_with_memory, "holds": holds}


def held(agent: list[dict[str, Any]], seen: set[int]) -> list[dict[str, Any]]:
    """Holds new in this turn's model calls (`seen`: indexes of the conversation's tool results
    counted already): the command, the fixes its warning names, the warning's bytes, the model
    call it added (its request's bytes) and the result of the command's next run."""
    if not agent:
        return []
    def results(request: dict[str, Any]) -> list[str]:
        return [content_text(m["content"]) for m in request["messages"] if m["role"] == "tool"]

    found: list[dict[str, Any]] = []
    last = results(agent[-1])
    calls = [json.loads(c["function"]["arguments"]).get("command", "")
             for m in agent[-1]["messages"] for c in m.get("tool_calls") or []]
    for index, result in enumerate(last):
        if HELD not in result or index in seen:
            continue
        seen.add(index)
        added = next((r for r in agent if len(results(r)) == index + 1), agent[-1])
        found.append({"command": calls[index] if index < len(calls) else "",
                      "fixes": re.findall(r"^Known fix (\S+):", result, re.MULTILINE),
                      "warning_bytes": len(result.encode()),
                      "added_call_bytes": len(json.dumps(added).encode()),
                      "next_run": last[index + 1][:160] if index + 1 < len(last) else ""})
    return found


def notes_of(db: Database, project: str) -> list[dict[str, Any]]:
    rows = export_notes(db, after="", projects=[project], zk_ids=None, limit=2_000)
    return [{key: value for key, _, value in row["props"]} for row in rows]


def summarise(mode: str, played: list[dict[str, Any]], notes: list[dict[str, Any]],
              relay: Relay, health: list[float]) -> dict[str, Any]:
    live = [n for n in notes if n.get("memory_type") != "archived"]
    handoffs = Counter(n.get("session_id") for n in live if n["note_kind"] == "session_summary")
    searches = ("grep", "test -f", "test -d", "diff ", "git diff", "pgrep")
    search_mistakes = [n["title"] for n in notes if n["note_kind"] == "mistake"
                       and any(f"`{s}" in n["content"][:80] for s in searches)]
    holds = [h | {"session": p["session"]} for p in played for h in p["holds"]]
    summaries = [n for n in notes if n["note_kind"] == "session_summary"]
    firsts = {p["first_request"] for p in played}

    def own(p: dict[str, Any]) -> dict[str, Any]:
        """The handoffs of one OpenCode session (its id known): whether they name its first request,
        and how many other sessions' first requests (none part of one of its own) they name."""
        mine = [n for n in summaries if n.get("session_id") == p["id"]]
        text = "\n".join(n["content"] for n in mine if n.get("memory_type") != "archived")
        return {"session": p["session"], "written": len(mine),
                "live": sum(1 for n in mine if n.get("memory_type") != "archived"),
                "names_its_request": p["first_request"] in text,
                "names_others": sum(1 for f in firsts if f in text
                                    and not any(f in r for r in p["requests"]))}

    def ms(values: list[float]) -> dict[str, float]:
        ordered = sorted(values)
        return {"p50_ms": round(statistics.median(ordered), 1),
                "p95_ms": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 1),
                "n": len(ordered)}

    return {
        "mode": mode, "sessions": len(played), "turns": sum(p["turns"] for p in played),
        "notes_written": dict(Counter(n["note_kind"] for n in notes)),
        "notes_live": dict(Counter(n["note_kind"] for n in live)),
        "handoffs_per_session": {"sessions_with_one": sum(1 for c in handoffs.values() if c == 1),
                                 "max_live": max(handoffs.values(), default=0),
                                 "live_summaries": sum(handoffs.values())},
        "handoffs_of_each_session": [own(p) for p in played if p["id"]],
        "closes": {"answered": len(relay.closes),
                   "wrote": sum(1 for c in relay.closes if c.get("summary_zk_id")
                                and not c.get("revised")),
                   "revised": sum(1 for c in relay.closes if c.get("revised"))},
        "mistakes_from_searches": search_mistakes,
        "mistakes": sorted(n["title"] for n in notes if n["note_kind"] == "mistake"),
        "blockers_in_handoffs": sorted(line.strip("- ") for n in live
                                       if n["note_kind"] == "session_summary"
                                       for line in n["content"].splitlines()
                                       if "still fails" in line),
        "holds": holds, "hold_count": len(holds),
        "most_holds_of_a_command_in_a_session": max(
            Counter((h["session"], h["command"]) for h in holds).values(), default=0),
        "start_context": [{"session": p["session"], "bytes": max(map(len, p["starts"]), default=0),
                           "model_calls": len(p["starts"]),
                           "changes": len(set(p["starts"])) - 1 if p["starts"] else 0}
                          for p in played],
        "start_context_changes": sum(len(set(p["starts"])) - 1 for p in played if p["starts"]),
        "title_requests": sum(p["titles"] for p in played),
        "title_requests_with_memory": sum(p["titles_with_memory"] for p in played),
        "answers_unread": dict(Counter(relay.unread)),
        "unanswered": dict(Counter(relay.unanswered)),
        "latency": {action: ms(v) for action, v in sorted(relay.samples.items())
                    if action != "health"} | {"health_floor": ms(health)},
        "cpus": os.cpu_count(), "load_avg_1m": round(os.getloadavg()[0], 2),
    }


@contextmanager
def driving(mode: str, ws: Path, home: Path, env: dict[str, str],
            relay: Relay) -> Iterator[Runs | Served]:
    """The turns' driver of `mode` ("run" or "serve") in the prepared workspace."""
    if mode == "run":
        yield Runs(ws, home, env)
        time.sleep(1)  # the last idle's handoff
        return
    with opencode.serve(ws, home, env, plugins=True) as server:
        yield Served(server, relay)


def run(mcp_url: str, env: dict[str, str], db: Database, base: Path, project: str,
        small: bool, mode: str = "run") -> dict[str, Any]:
    """The workload against the service at `mcp_url` (its `env` for the wiring), in a workspace
    `base/project`, driven by `mode`; the summary."""
    relay = Relay(mcp_url.rsplit("/mcp", 1)[0])
    ws, home = base / project, base / "home"
    try:
        with scripted_model() as (model, model_url):
            prepare(ws, env, home, mcp_url, relay.url, model_url)
            token = {k: v for k, v in env.items() if k == "KG_BRAIN_HTTP_TOKEN"}  # OpenCode's
            with driving(mode, ws, home, token, relay) as driver:
                played = [play(model, session, driver) for session in workload(ws)
                          if not small or session.name in SMALL]
        token = {"Authorization": f"Bearer {env.get('KG_BRAIN_HTTP_TOKEN', '')}"}
        health = []
        for _ in range(30):
            began = time.perf_counter()
            httpx.get(f"{relay.url}/health", headers=token, timeout=30)
            health.append((time.perf_counter() - began) * 1000)
        return summarise(mode, played, notes_of(db, project), relay, health)
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


@contextmanager
def bench_service() -> Iterator[tuple[str, dict[str, str], Brain, Path]]:
    """A `kg-brain serve --http` of the bench's own (no scheduler, no shared service) on a free
    port, a Brain on the same database and a scratch folder: (MCP url, the service's environment,
    the Brain, the folder); the Brain closed and the folder removed after."""
    from kg_brain.base.settings import load_settings
    from kg_brain.store.localdb import free_port

    env = {**os.environ, "SCHEDULER_IN_SERVER": "false", "KG_BRAIN_SERVICE_START": "false",
           "KG_BRAIN_HTTP_PORT": str(free_port()), "KG_BRAIN_HTTP_TOKEN": secrets.token_urlsafe(24)}
    base = Path(tempfile.mkdtemp())
    brain = Brain(load_settings())
    try:
        with service(env) as mcp_url:
            yield mcp_url, env, brain, base
    finally:
        brain.close()
        shutil.rmtree(base, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    from bench.common import BENCH_PREFIX, delete_bench_project, emit_result

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true")
    parser.add_argument("--mode", choices=("run", "serve"), default="run")
    parser.add_argument("--out", type=Path, default=Path("plugin_workload.json"))
    args = parser.parse_args(argv)
    project = f"{BENCH_PREFIX}workload-{uuid.uuid4().hex[:8]}"
    with bench_service() as (mcp_url, env, brain, base):
        try:
            emit_result(run(mcp_url, env, brain.db, base, project, args.small, args.mode),
                        args.out)
        finally:
            delete_bench_project(brain.db, project)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
