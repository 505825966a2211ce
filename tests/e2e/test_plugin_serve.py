"""The plugin in one long-lived `opencode serve` (what the TUI runs) as a user moves between its
sessions: a session opened while a check's last run failed with a known fix, left waiting while
another session of the same process fixes the check (held there once: its last run failed and
its fix is known) and runs it, passing; then picked again from the session list to run the
check. The check is not held there (its last run in the project passed, whatever the
waiting session was told when it began), the waiting session's start context is byte-identical
before and after, and each session keeps its own one handoff."""

from __future__ import annotations

import secrets
from pathlib import Path

from bench.plugin_relay import Relay
from bench.plugin_workload import Served, play, prepare
from bench.plugin_workload_data import BUGGY, CHECK, FIXED, Session, Turn, bash, rewrite
from kg_brain.store.db import Database
from kg_brain.store.localdb import free_port
from tests.e2e import opencode
from tests.e2e.conftest import kg_env, project_notes
from tests.e2e.scripted_model import scripted_model
from tests.mcp.test_http import http_server
from tests.support.neo4j import ServerUnderTest


def test_a_session_picked_again_after_another_fixed_its_check_does_not_hold_it(
        opencode_binary: Path, neo4j_server: ServerUnderTest, db: Database, project: str,
        tmp_path: Path) -> None:
    env = {**kg_env(neo4j_server), "KG_BRAIN_DATA_DIR": str(tmp_path / "kg-data"),
           "KG_BRAIN_HTTP_TOKEN": secrets.token_urlsafe(24)}
    (tmp_path / "service" / ".git").mkdir(parents=True)
    ws, home = tmp_path / project, tmp_path / "home"
    money = ws / "money.py"
    with http_server(env, "127.0.0.1", free_port(), tmp_path / "service") as mcp_url:
        relay = Relay(mcp_url.rsplit("/mcp", 1)[0])
        try:
            with scripted_model() as (model, model_url):
                prepare(ws, env, home, mcp_url, relay.url, model_url)
                token = {"KG_BRAIN_HTTP_TOKEN": env["KG_BRAIN_HTTP_TOKEN"]}
                with opencode.serve(ws, home, token, plugins=True) as server:
                    driver = Served(server, relay)
                    played = [play(model, session, driver) for session in (
                        Session("fix-then-break", [
                            Turn("Run the checks", [bash(CHECK)]),
                            Turn("Fix the split", [*rewrite(money, FIXED), bash(CHECK)]),
                            Turn("Make split simpler", [*rewrite(money, BUGGY), bash(CHECK)])]),
                        Session("waiting", [Turn("What is left to do?")]),
                        Session("fixer", [Turn("Fix the split again", [  # held once
                            *rewrite(money, FIXED), bash(CHECK), bash(CHECK)])]),
                        Session("waiting", [Turn("Run the checks", [bash(CHECK)])]))]
                    log = server.output()
        finally:
            relay.close()

    first, waiting, fixer, back = played
    assert waiting["id"] == back["id"] != fixer["id"], log[-3000:]
    holds = [(p["session"], h["command"]) for p in played for h in p["holds"]]
    assert holds == [("fixer", CHECK)], holds  # a new session; not the waiting one: it passed
    assert waiting["starts"][0] and set(back["starts"]) == {waiting["starts"][0]}  # unchanged
    notes = project_notes(db, project)
    handoffs = [n for n in notes if n["note_kind"] == "session_summary"]
    assert sorted(n["session_id"] for n in handoffs) == sorted(
        {p["id"] for p in played}), handoffs  # one each, the waiting session's revised
    waited = next(n["content"] for n in handoffs if n["session_id"] == back["id"])
    assert "What is left to do?" in waited and "Fix the split again" not in waited
    assert first["id"] != waiting["id"]
