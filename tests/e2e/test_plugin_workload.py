"""The plugin workload benchmark (bench/plugin_workload.py) at the size CI runs: the three
sessions of the hold path and a subagent's, through the real OpenCode and plugin against a
service of its own, meet the targets: one live handoff per session (a subagent's failure among
its parent's blockers), no mistake from a search with no match, one hold
(the regression left failing, whose fix is known), a start context unchanged within each
session, no memory in OpenCode's title requests."""

from __future__ import annotations

import secrets
import uuid
from pathlib import Path

from bench.plugin_workload import run
from kg_brain.db import Database
from kg_brain.localdb import free_port
from tests.e2e.conftest import kg_env
from tests.mcp.test_http import http_server
from tests.support.neo4j import ServerUnderTest


def test_the_small_workload_meets_the_targets(opencode_binary: Path,
                                              neo4j_server: ServerUnderTest, db: Database,
                                              tmp_path: Path) -> None:
    env = {**kg_env(neo4j_server), "KG_BRAIN_DATA_DIR": str(tmp_path / "kg-data"),
           "KG_BRAIN_HTTP_TOKEN": secrets.token_urlsafe(24)}
    (tmp_path / "service" / ".git").mkdir(parents=True)
    project = f"test-{uuid.uuid4().hex[:12]}"
    with http_server(env, "127.0.0.1", free_port(), tmp_path / "service") as mcp_url:
        result = run(mcp_url, env, db, tmp_path, project, small=True)

    assert result["handoffs_per_session"] == {"sessions_with_one": 4, "max_live": 1,
                                              "live_summaries": 4}, result
    assert any("pyflakes" in b for b in result["blockers_in_handoffs"]), result
    assert result["mistakes_from_searches"] == []
    assert [h["session"] for h in result["holds"]] == ["held"], result["holds"]
    assert "split lost a cent" in result["holds"][0]["next_run"]  # it was still failing
    assert all(s["changes"] == 0 for s in result["start_context"]), result["start_context"]
    assert result["title_requests_with_memory"] == 0
    assert result["notes_live"]["fix"] >= 1
