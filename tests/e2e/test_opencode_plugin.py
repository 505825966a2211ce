"""The kg-brain plugin in the real OpenCode (`opencode run` with plugins loaded), against a shared
`kg-brain serve --http` (one warm service for the module, each test in a project of its own, as
windows on several repositories share one), with a scripted model that only runs bash commands:
memory reaches the model and failures are recorded without any kg-brain tool call.

(a) the handoff and a past mistake are in the system prompt of a new session's first request;
(b) a failing command becomes a mistake note and the later success of an equivalent command the
    fix, linked FIXES;
(c) in the next session an equivalent command is held before it runs: its result is the preflight
    warning with the fix, and the command has not run; run again, it runs;
(d) with no service to reach, nothing is injected and the session still completes;
and each session leaves one handoff of what it did, `/remember` stores a note directly (run as
a command or typed as the message), and a stored note relevant to the user's message is in that
request's system prompt (none for an unrelated message).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport

from kg_brain.enrichment.embed import Embedder
from kg_brain.root.app import Brain
from kg_brain.store.db import Database
from kg_brain.store.localdb import free_port
from kg_brain.surfaces.tools import BrainTools
from tests.e2e import opencode
from tests.e2e.conftest import git_workspace, kg_env, project_notes, wire
from tests.e2e.scripted_model import ScriptedModel, Step, content_text, scripted_model
from tests.mcp.test_http import http_server
from tests.support.brains import make_settings
from tests.support.loopback import holding
from tests.support.mcp import bearer
from tests.support.neo4j import ServerUnderTest

NEXT = "Port the invoice exporter to the new ledger API"
MISTAKE = "make docs fails: sphinx-build not found; the docs need the docs extra installed"
FIX = "pip install -e '.[docs]' before make docs"
FAILING = "cat notes/todo.txt"
EQUIVALENT = "cat ./notes/todo.txt 2>&1"  # the same command for the plugin
REPAIR = "mkdir -p notes && echo 'ship it' > notes/todo.txt"
MEMORY_HEADER = "# Long-term memory (kg-brain"
RECALL_HEADER = "# kg-brain: stored notes relevant to this message"


def agent_requests(model: ScriptedModel) -> list[dict[str, Any]]:
    """The agent's model calls (the title request has no tools)."""
    return [r for r in model.requests if r.get("tools")]


def system_prompt(request: dict[str, Any]) -> str:
    return "\n".join(content_text(m["content"]) for m in request["messages"]
                     if m["role"] == "system")


def bash(command: str) -> Step:
    return Step("bash", {"command": command, "description": "run a command"})


def play(model: ScriptedModel, steps: list[Step], workspace: Path, home: Path,
         env: dict[str, str], message: str = "Do the scripted work.",
         resume: bool = False) -> tuple[opencode.Run, list[str]]:
    model.steps = steps
    model.requests.clear()
    run = opencode.run(workspace, home, message, env, plugins=True, resume=resume)
    assert run.returncode == 0, run.stderr[-4000:]
    results = model.tool_results()
    assert len(results) == len(steps), (results, run.stderr[-4000:])
    return run, results


def wire_plugin(workspace: Path, env: dict[str, str], home: Path, mcp_url: str) -> str:
    """`kg-brain wire opencode --url`, then the plugin's read timeout raised from its 1.5 s
    default: these tests check what memory adds, and a busy machine can take longer to answer
    while OpenCode starts (the unreachable-service test keeps the default)."""
    out = wire(workspace, env, home, "--url", mcp_url)
    settings_file = workspace / ".opencode" / "kg-brain.json"
    settings = json.loads(settings_file.read_text())
    settings["read_timeout_ms"] = settings["write_timeout_ms"] = 60_000
    opencode.write_json(settings_file, settings)
    return out


def plugin_warnings(run: opencode.Run) -> str:
    """The plugin's warnings in OpenCode's log (why memory was missing, when it was)."""
    return "\n".join(line for line in run.stderr.splitlines() if "kg-brain" in line)[-4000:]


def warm(mcp_url: str, project: str, env: dict[str, str]) -> None:
    """What a warm service has done already: the embedding model and the driver loaded."""
    async def search() -> None:
        transport = StreamableHttpTransport(mcp_url, headers=bearer(env))
        async with Client(transport, timeout=300) as client:
            await client.call_tool("search_memory", {"query": "warm up", "project": project})

    anyio.run(search)


@pytest.fixture(scope="module")
def service(neo4j_server: ServerUnderTest,
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    """The service's MCP url and the environment its clients get, warmed once."""
    base = tmp_path_factory.mktemp("plugin-service")
    env = {**kg_env(neo4j_server), "KG_BRAIN_DATA_DIR": str(base / "kg-data")}
    server_dir = base / "service"
    (server_dir / ".git").mkdir(parents=True)
    with http_server(env, "127.0.0.1", free_port(), server_dir) as mcp_url:
        warm(mcp_url, f"test-{uuid.uuid4().hex[:12]}", env)
        yield mcp_url, env


def seed(db: Database, embedder: Embedder, project: str) -> tuple[str, str]:
    """A previous session's handoff and a solved mistake; returns the mistake and fix ids."""
    brain = Brain(make_settings(), db=db, embedder=embedder)
    brain.sessions.close(project, "Ship the ledger client", ["Ledger client released"], [],
                         [NEXT], ["ledger/client.py"])
    failure = brain.mistakes.record_failure(MISTAKE, project)
    fix = brain.mistakes.record_resolution(failure.zk_id, FIX)
    return failure.zk_id, fix.fix_zk_id


def test_plugin_injects_memory_and_records_a_failure_and_its_fix(
        opencode_binary: Path, service: tuple[str, dict[str, str]], db: Database,
        embedder: Embedder, project: str, tmp_path: Path) -> None:
    mcp_url, env = service
    home = tmp_path / "home"
    mistake_id, fix_id = seed(db, embedder, project)
    with scripted_model() as (model, url):
        workspace = git_workspace(tmp_path, project, url)
        out = wire_plugin(workspace, env, home, mcp_url)
        assert (workspace / ".opencode" / "plugin" / "kg-brain.js").is_file(), out
        run, first = play(model, [bash(FAILING), bash(REPAIR), bash(EQUIVALENT)], workspace,
                          home, env)
        opening = system_prompt(agent_requests(model)[0])
        titles = [system_prompt(r) for r in model.requests if not r.get("tools")]
        (workspace / "notes" / "todo.txt").unlink()
        _, regressed = play(model, [bash(EQUIVALENT), bash("grep -rn nothing-here notes")],
                            workspace, home, env, "Check the todo list")
        _, third = play(model, [bash(EQUIVALENT), bash(EQUIVALENT)], workspace, home, env)

    assert MEMORY_HEADER in opening and NEXT in opening, plugin_warnings(run)  # (a)
    assert mistake_id in opening and fix_id in opening
    assert titles and not any(MEMORY_HEADER in t for t in titles)  # the title request: none
    assert "ship it" in first[2] and "failed" not in first[0].split("\n")[0][:20]
    assert "failed the last time" not in regressed[0]  # its last run passed: not held

    notes = project_notes(db, project)
    mistakes = [n for n in notes if n["note_kind"] == "mistake" and FAILING in n["content"]]
    fixes = [n for n in notes if n["note_kind"] == "fix" and FAILING in n["content"]]
    assert len(fixes) == 1 and mistakes, notes  # (b)
    assert not [n for n in notes if n["note_kind"] == "mistake" and "grep" in n["content"]]
    assert "No such file or directory" in mistakes[0]["content"]
    assert REPAIR in fixes[0]["content"] and FAILING in fixes[0]["content"]
    links = Brain(make_settings(), db=db).reader.get([mistakes[0]["zk_id"]])[0].links
    assert ("FIXES", "in", fixes[0]["zk_id"]) in [(k.type, k.direction, k.zk_id) for k in links]

    summaries = [n["content"] for n in notes if n["note_kind"] == "session_summary"]
    assert len(summaries) == 4, summaries  # the seed's, then one per session
    handoff = next(text for text in summaries if REPAIR in text)
    assert "Do the scripted work" in handoff and "still fails" not in handoff
    unsolved = next(text for text in summaries if "Check the todo list" in text)
    assert "still fails" in unsolved and "grep" in unsolved and "grep -rn" not in \
        unsolved.split("Blockers")[-1]

    held, ran = third  # (c): its last run failed and a fix is known: held once
    assert "failed the last time" in held and fixes[0]["zk_id"] in held and REPAIR in held
    output = "cat: ./notes/todo.txt: No such file or directory"  # this run's own, not the note's
    assert "has not run" in held and "(exit 1)" not in held  # its headline ends on the error
    assert output in ran and "failed the last time" not in ran


def test_continued_runs_of_a_session_keep_one_handoff_that_covers_them_all(
        opencode_binary: Path, service: tuple[str, dict[str, str]], db: Database,
        project: str, tmp_path: Path) -> None:
    """`opencode run --continue`: a new plugin process serving the same OpenCode session."""
    mcp_url, env = service
    home = tmp_path / "home"
    with scripted_model() as (model, url):
        workspace = git_workspace(tmp_path, project, url)
        wire_plugin(workspace, env, home, mcp_url)
        play(model, [bash(FAILING)], workspace, home, env, "Make the todo list readable")
        opening = system_prompt(agent_requests(model)[0])
        play(model, [bash(FAILING), bash(REPAIR), bash(EQUIVALENT)], workspace, home, env,
             "Now fix it", resume=True)  # the conversation holds the first run's result
        continued = [system_prompt(r) for r in agent_requests(model)]

    notes = project_notes(db, project)
    summaries = [n for n in notes if n["note_kind"] == "session_summary"]
    assert len(summaries) == 1, summaries  # revised, not written again
    text = summaries[0]["content"]
    assert "Make the todo list readable" in text and REPAIR in text and "still fails" not in text
    fixes = [n for n in notes if n["note_kind"] == "fix"]
    assert len(fixes) == 1 and REPAIR in fixes[0]["content"]  # the fix spans the two runs
    starts = {p.split(RECALL_HEADER)[0] for p in continued + [opening]}
    assert len(starts) == 1  # the start context is the session's, unchanged


def test_the_handoff_written_at_idle_is_answered_before_the_run_exits(
        opencode_binary: Path, service: tuple[str, dict[str, str]], db: Database,
        project: str, tmp_path: Path) -> None:
    """`opencode run` exits right after the session goes idle, without waiting for the plugin's
    event hook: with the service's handoff request held 2 s on its way, the run still ends with
    the handoff written (OpenCode awaits the plugin's dispose, which waits for it)."""
    mcp_url, env = service
    home = tmp_path / "home"
    with holding(mcp_url.removesuffix("/mcp"), "/plugin/close", 2.0) as (relay, dropped), \
            scripted_model() as (model, url):
        workspace = git_workspace(tmp_path, project, url)
        wire_plugin(workspace, env, home, f"{relay}/mcp")
        run, _ = play(model, [bash(FAILING)], workspace, home, env, "Make the todo list readable")

    summaries = [n for n in project_notes(db, project) if n["note_kind"] == "session_summary"]
    assert not dropped, plugin_warnings(run)
    assert len(summaries) == 1 and "Make the todo list readable" in summaries[0]["content"]


@pytest.mark.parametrize("typed", ["command", "message"])
def test_remember_stores_the_users_note_without_the_model(
        opencode_binary: Path, service: tuple[str, dict[str, str]], db: Database, project: str,
        tmp_path: Path, typed: str) -> None:
    """`opencode run --command remember TEXT`, or `opencode run "/remember TEXT"` (a message)."""
    mcp_url, env = service
    home = tmp_path / "home"
    fact = "The staging database is reset every Sunday at 03:00 UTC."
    with scripted_model() as (model, url):
        workspace = git_workspace(tmp_path, project, url)
        wire_plugin(workspace, env, home, mcp_url)
        if typed == "command":
            run = opencode.run(workspace, home, fact, env, plugins=True, command="remember")
        else:
            run = opencode.run(workspace, home, f"/remember {fact}", env, plugins=True)
    assert run.returncode == 0, run.stderr[-4000:]

    notes = project_notes(db, project)
    assert [n["content"] for n in notes] == [fact]  # no handoff for a command-only session
    prompt = content_text(agent_requests(model)[0]["messages"][-1]["content"])
    assert notes[0]["zk_id"] in prompt and "stored" in prompt


def test_the_notes_relevant_to_the_users_message_reach_the_model(
        opencode_binary: Path, service: tuple[str, dict[str, str]], db: Database,
        embedder: Embedder, project: str, tmp_path: Path) -> None:
    mcp_url, env = service
    home = tmp_path / "home"
    tools = BrainTools(Brain(make_settings(), db=db, embedder=embedder))
    cents = tools.add_memory("Invoice amounts are stored in cents as integers, never as floats: "
                             "float rounding lost a cent on split payments.", project).zk_id
    prompts, warnings = [], []
    with scripted_model() as (model, url):
        workspace = git_workspace(tmp_path, project, url)
        wire_plugin(workspace, env, home, mcp_url)
        for message in ("Should I store the invoice amount as a float?",
                        "Write a haiku about autumn leaves"):
            model.requests.clear()
            run = opencode.run(workspace, home, message, env, plugins=True)
            assert run.returncode == 0, run.stderr[-4000:]
            prompts.append(system_prompt(agent_requests(model)[0]))
            warnings.append(plugin_warnings(run))

    relevant, unrelated = prompts
    assert RECALL_HEADER in relevant and f"- {cents} (" in relevant, warnings[0]
    assert MEMORY_HEADER not in relevant  # a new project: no start context, the recall alone
    assert RECALL_HEADER not in unrelated and cents not in unrelated


def test_plugin_without_a_service_injects_nothing_and_the_session_goes_on(
        opencode_binary: Path, neo4j_server: ServerUnderTest, project: str,
        tmp_path: Path) -> None:
    env = {**kg_env(neo4j_server), "KG_BRAIN_DATA_DIR": str(tmp_path / "kg-data")}
    home = tmp_path / "home"
    with scripted_model() as (model, url):
        workspace = git_workspace(tmp_path, project, url)
        wire(workspace, env, home, "--url", f"http://127.0.0.1:{free_port()}/mcp")
        settings = json.loads((workspace / ".opencode" / "kg-brain.json").read_text())
        assert settings["start"] == []  # a --url service is never started by the plugin
        run, results = play(model, [bash("false"), bash("echo still working")], workspace,
                            home, env)

    assert "still working" in results[1]
    assert not any(MEMORY_HEADER in system_prompt(r) for r in model.requests)
    assert run.stderr.count("kg-brain memory unavailable") == 1  # (d): logged once
