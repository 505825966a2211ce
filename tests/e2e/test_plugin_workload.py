"""The plugin workload benchmark (bench/plugin_workload.py) at the size CI runs: the three
sessions of the hold path and a subagent's, through the real OpenCode and plugin against a
service of its own, each turn an `opencode run` (a session's later ones `--continue`) or, as the
TUI runs it, all of them in one `opencode serve` (one plugin instance for every session, driven
over its HTTP API), meet the targets: one live handoff per session, written once and revised in
place at each idle (under serve, each session's own: its request, none of the others'; a
subagent's failure among its parent's blockers), no mistake from a search or a request with no
match, one hold (the regression left failing, whose fix is known; a command held at most once in
a session, never one whose last run passed), a start context unchanged within each session, no
memory in OpenCode's title requests."""

from __future__ import annotations

import secrets
import uuid
from pathlib import Path

import pytest

from bench.plugin_workload import run
from kg_brain.store.db import Database
from kg_brain.store.localdb import free_port
from tests.e2e.conftest import kg_env, project_notes
from tests.mcp.test_http import http_server
from tests.support.neo4j import ServerUnderTest

SESSIONS = 4


@pytest.mark.parametrize("mode", ["run", "serve"])
def test_the_small_workload_meets_the_targets(opencode_binary: Path,
                                              neo4j_server: ServerUnderTest, db: Database,
                                              tmp_path: Path, mode: str) -> None:
    env = {**kg_env(neo4j_server), "KG_BRAIN_DATA_DIR": str(tmp_path / "kg-data"),
           "KG_BRAIN_HTTP_TOKEN": secrets.token_urlsafe(24)}
    (tmp_path / "service" / ".git").mkdir(parents=True)
    project = f"test-{uuid.uuid4().hex[:12]}"
    with http_server(env, "127.0.0.1", free_port(), tmp_path / "service") as mcp_url:
        result = run(mcp_url, env, db, tmp_path, project, small=True, mode=mode)

    assert result["unanswered"] == {}, result  # every plugin request reached the service
    assert result["handoffs_per_session"] == {"sessions_with_one": SESSIONS, "max_live": 1,
                                              "live_summaries": SESSIONS}, result
    assert result["notes_written"]["session_summary"] == SESSIONS  # never one per reply
    closes = result["closes"]  # each idle after a turn (not /remember's): one write, revisions
    assert closes == {"answered": result["turns"] - 1, "wrote": SESSIONS,
                      "revised": result["turns"] - 1 - SESSIONS}, closes
    assert any("pyflakes" in b for b in result["blockers_in_handoffs"]), result
    assert result["mistakes_from_searches"] == []
    assert not [m for m in result["mistakes"] if "curl" in m]  # exit 7 with no output

    holds = result["holds"]
    assert [(h["session"], h["command"]) for h in holds] == [("held", "./check.sh")], holds
    assert "split lost a cent" in holds[0]["next_run"]  # it was still failing
    fixes = {n["zk_id"] for n in project_notes(db, project) if n["note_kind"] == "fix"}
    assert holds[0]["fixes"] and set(holds[0]["fixes"]) <= fixes  # a known fix, named

    assert [s["changes"] for s in result["start_context"]] == [0] * SESSIONS, result
    assert all(s["model_calls"] >= 4 for s in result["start_context"])
    assert result["title_requests"] >= SESSIONS and result["title_requests_with_memory"] == 0
    assert result["notes_live"]["fix"] >= 1
    if mode == "serve":  # each OpenCode session of the one process, by its id
        own = [{k: h[k] for k in ("written", "live", "names_its_request", "names_others")}
               for h in result["handoffs_of_each_session"]]
        assert own == [{"written": 1, "live": 1, "names_its_request": True,
                        "names_others": 0}] * SESSIONS, result["handoffs_of_each_session"]
