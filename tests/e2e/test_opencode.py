"""The real OpenCode (`opencode run`) driving kg-brain, with a scripted model in place of an LLM.

Over stdio OpenCode spawns the server that `kg-brain wire opencode` configured; over HTTP two
workspaces share one `kg-brain serve --http`, OpenCode sending the token the service made (the
wired entry names its file). Each test checks both ends: what reached Neo4j
(project = the workspace's name, the notes, the FIXES link) and what the model was sent (the
tool results, and in a second run the first run's handoff).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kg_brain.root.app import Brain
from kg_brain.store.db import Database
from kg_brain.store.localdb import free_port
from kg_brain.surfaces.profiles import CORE
from tests.e2e import opencode
from tests.e2e.conftest import git_workspace, kg_env, project_notes, wire, wire_patient
from tests.e2e.scripted_model import SERVER_PREFIX, ScriptedModel, Step, parsed, scripted_model
from tests.mcp.test_contract import CONTRACT
from tests.mcp.test_http import http_server
from tests.support.brains import make_settings
from tests.support.neo4j import ServerUnderTest

DECISION = "The billing service retries failed webhooks 5 times with exponential backoff."
FAILURE = "pytest tests/billing fails: ImportError: cannot import name 'Retry' from billing.http"
SIGNATURE = "ImportError: cannot import name 'Retry' from billing.http"
FIX = "Import Retry from urllib3.util.retry: billing.http stopped re-exporting it in 2.0."
NEXT = "Add a regression test for the webhook retry count"


def first_session_steps() -> list[Step]:
    return [
        Step("add_memory", {"content": DECISION, "note_kind": "decision"}),
        Step("record_failure", {"content": FAILURE, "failure_signature": SIGNATURE}),
        Step("record_resolution", lambda r: {"failure_zk_id": r[1]["zk_id"],
                                             "fix_content": FIX}),
        Step("search_memory", {"query": "How many times are failed webhooks retried?"}),
        Step("close_session", {"objective": "Fix the billing test import",
                               "completed": ["Fixed the Retry import"], "blockers": [],
                               "next_steps": [NEXT], "key_files": ["billing/http.py"]}),
    ]


def run_script(model: ScriptedModel, steps: list[Step], workspace: Path, home: Path,
               env: dict[str, str]) -> tuple[opencode.Run, list[Any]]:
    """One `opencode run` playing `steps`; returns the run and the tool results the model got."""
    model.steps = steps
    run = opencode.run(workspace, home, "Work with the kg-brain memory as scripted.", env)
    assert run.returncode == 0, run.stderr[-4000:]
    results = [parsed(text) for text in model.tool_results()]
    assert len(results) == len(steps), (results, run.stderr[-4000:])
    return run, results


def test_opencode_over_stdio_keeps_a_session_and_hands_it_to_the_next(
        opencode_binary: Path, neo4j_server: ServerUnderTest, db: Database, project: str,
        tmp_path: Path) -> None:
    env = kg_env(neo4j_server)
    with scripted_model() as (model, url):
        workspace = git_workspace(tmp_path, project, url)
        assert "Embedding model ready" in wire_patient(workspace, env, tmp_path / "home")
        first, results = run_script(model, first_session_steps(), workspace, tmp_path / "home",
                                    env)
        offered = {t["function"]["name"] for t in model.requests[-1]["tools"]}
        assert {SERVER_PREFIX + name for name in CONTRACT} <= offered
        second, (start,) = run_script(model, [Step("open_session")], workspace,
                                      tmp_path / "home", env)

    assert all(isinstance(r, dict) for r in results), results
    added, failure, resolution, search, closed = results
    assert {r["project"] for r in results} == {project}
    assert resolution["failure_zk_id"] == failure["zk_id"]
    assert search["hits"][0]["zk_id"] == added["zk_id"]
    assert closed["summary_zk_id"] in first.stdout  # the final answer quotes the last result

    context = start["context"]
    assert start["project"] == project
    assert context["last_session"]["zk_id"] == closed["summary_zk_id"]
    assert NEXT in context["open_thread"]["content"]
    assert [f["zk_id"] for m in context["mistakes"] for f in m["fixes"]] == \
        [resolution["fix_zk_id"]]
    assert project in second.stdout

    stored = {n["zk_id"]: n for n in project_notes(db, project)}
    assert stored[added["zk_id"]]["content"] == DECISION
    assert stored[added["zk_id"]]["note_kind"] == "decision"
    assert stored[failure["zk_id"]]["memory_type"] == "permanent"  # promoted by the fix
    assert stored[resolution["fix_zk_id"]]["note_kind"] == "fix"
    assert {"session_summary", "open_thread"} <= {n["note_kind"] for n in stored.values()}
    fixes = [(link.type, link.direction) for link in
             Brain(make_settings(), db=db).reader.get([failure["zk_id"]])[0].links]
    assert ("FIXES", "in") in fixes


def test_two_opencode_workspaces_on_one_http_server_get_two_projects(
        opencode_binary: Path, neo4j_server: ServerUnderTest, db: Database, project: str,
        tmp_path: Path) -> None:
    env = {**kg_env(neo4j_server), "KG_BRAIN_DATA_DIR": str(tmp_path / "kg-data")}
    server_dir = tmp_path / f"{project}-kg"
    (server_dir / ".git").mkdir(parents=True)
    facts = {f"{project}-a": "Service A listens on port 8101.",
             f"{project}-b": "Service B listens on port 8102."}
    seen: dict[str, list[Any]] = {}
    with scripted_model() as (model, url), \
            http_server(env, "127.0.0.1", free_port(), server_dir) as mcp_url:
        for name, fact in facts.items():
            workspace = git_workspace(tmp_path / "workspaces", name, url)
            wire(workspace, env, tmp_path / "home", "--url", mcp_url)
            wired = (workspace / "opencode.json").read_text()
            named = json.loads(wired)["mcp"]["kg-brain"]["url"]  # the repository, no path
            assert named.startswith(f"{mcp_url}?repo=gitdir%3A") and \
                named.endswith(f"&name={name}&tools=full") and str(tmp_path) not in named
            token = tmp_path / "kg-data" / "state" / "token"  # made by the service, referenced
            assert f"{{file:{token}}}" in wired and token.read_text().strip() not in wired
            _, seen[name] = run_script(model, [
                Step("add_memory", {"content": fact, "note_kind": "project_context"}),
                Step("search_memory", {"query": "Which port does the service listen on?",
                                       "include_contextual": True})],
                workspace, tmp_path / "home", env)

    for name, fact in facts.items():
        added, search = seen[name]
        assert added["project"] == search["project"] == name
        assert [h["zk_id"] for h in search["hits"]] == [added["zk_id"]]
        assert [n["content"] for n in project_notes(db, name)] == [fact]
    assert project_notes(db, f"{project}-kg") == []


def compact_bytes(value: Any) -> int:
    """Bytes of `value` as JSON without spaces, as OpenCode's JSON.stringify sends it."""
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def test_each_tool_profile_weighs_on_every_model_request(
        opencode_binary: Path, neo4j_server: ServerUnderTest, project: str,
        tmp_path: Path) -> None:
    """What OpenCode sends the model with every request under each profile: kg-brain's tools
    and the bytes of their schemas, beside the whole request's (printed: `pytest -s`)."""
    env = kg_env(neo4j_server)
    sizes: dict[str, dict[str, int]] = {}
    with scripted_model() as (model, url):
        for profile, expected in (("core", CORE), ("full", tuple(CONTRACT))):
            workspace = git_workspace(tmp_path / profile, project, url)
            wire_patient(workspace, env, tmp_path / "home", "--tools", profile)
            run_script(model, [Step("open_session")], workspace, tmp_path / "home", env)
            body = model.requests[-1]
            ours = [t for t in body["tools"] if t["function"]["name"].startswith(SERVER_PREFIX)]
            assert sorted(t["function"]["name"] for t in ours) == \
                sorted(SERVER_PREFIX + name for name in expected)
            sizes[profile] = {"kg_brain_tools": len(ours), "kg_brain_bytes": compact_bytes(ours),
                              "all_tools": len(body["tools"]),
                              "all_tools_bytes": compact_bytes(body["tools"]),
                              "request_bytes": compact_bytes(body)}
    print("tool profile sizes per model request:", json.dumps(sizes))
    assert sizes["core"]["kg_brain_bytes"] * 2 < sizes["full"]["kg_brain_bytes"]
    assert sizes["core"]["all_tools"] - sizes["core"]["kg_brain_tools"] == \
        sizes["full"]["all_tools"] - sizes["full"]["kg_brain_tools"]  # OpenCode's own: the same
