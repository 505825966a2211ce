"""The OpenCode plugin's install (`kg-brain wire opencode`) and the text its endpoint renders:
the settings file, the start command, secrets by reference, a user's budget kept; the start
context cut to whole lines within the budget; the error line a failure is matched on."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from kg_brain import plugin
from kg_brain.errors import InvalidInput
from kg_brain.plugin_api import error_signature, one_line, render_start
from kg_brain.sessions import Handoff, Headline, MistakeHeadline, SessionContext
from kg_brain.wire import CLIENTS, server_environment
from tests.support.brains import make_settings


def test_install_copies_the_plugin_and_writes_how_to_reach_and_start_the_service(
        tmp_path: Path) -> None:
    settings = make_settings(neo4j_uri="bolt://db.internal:7687", neo4j_password="s3cret",
                             kg_brain_http_port=9911)
    env = server_environment(settings, CLIENTS["opencode"], False)
    path = plugin.install(settings, None, False, env, cwd=tmp_path)

    assert path == tmp_path / ".opencode" / "plugin" / "kg-brain.js"
    assert path.read_text() == plugin.SOURCE.read_text()
    assert path.with_name(plugin.COMMANDS.name).read_text() == plugin.COMMANDS.read_text()
    config = json.loads((tmp_path / ".opencode" / "kg-brain.json").read_text())
    assert config["url"] == "http://127.0.0.1:9911"
    assert config["start"] == [sys.executable, "-m", "kg_brain.cli", "serve", "--http"]
    assert config["start_env"]["NEO4J_PASSWORD"] == "{env:NEO4J_PASSWORD}"  # never the secret
    assert "s3cret" not in json.dumps(config)
    assert config["token_file"] == str(settings.state_dir / "token")
    assert config["recall_budget_tokens"] == plugin.RECALL_BUDGET_TOKENS


def test_install_again_keeps_the_users_budget_and_a_remote_service_is_never_started(
        tmp_path: Path) -> None:
    settings = make_settings()
    plugin.install(settings, None, False, {}, cwd=tmp_path)
    config_file = tmp_path / ".opencode" / "kg-brain.json"
    config_file.write_text(json.dumps({**json.loads(config_file.read_text()),
                                       "budget_tokens": 500, "recall_budget_tokens": 90}))
    plugin.install(settings, "https://memory.example:8443/mcp", False, {}, cwd=tmp_path)

    config = json.loads(config_file.read_text())
    assert config["budget_tokens"] == 500 and config["recall_budget_tokens"] == 90
    assert config["url"] == "https://memory.example:8443" and config["start"] == []
    with pytest.raises(InvalidInput):
        plugin.install(settings, "memory.example/mcp", False, {}, cwd=tmp_path)


def context() -> SessionContext:
    return SessionContext(
        project="shop", token_budget=2000, approx_tokens=0,
        last_session=Handoff(zk_id="ZK-00000001", title="handoff", created=None,
                             content="Objective: ship\nNext steps:\n- port the exporter"),
        decisions=[Headline(zk_id=f"ZK-1000000{i}", title=f"decision {i} " + "x" * 60,
                            note_kind="decision") for i in range(5)],
        mistakes=[MistakeHeadline(zk_id="ZK-20000000", title="make docs fails",
                                  note_kind="mistake",
                                  fixes=[Headline(zk_id="ZK-30000000", title="install docs",
                                                  note_kind="fix")])])


def test_the_start_context_is_whole_lines_within_the_budget() -> None:
    whole = render_start(context(), 2000)
    assert "port the exporter" in whole and "ZK-20000000" in whole and "ZK-30000000" in whole
    short = render_start(context(), 60)  # 240 characters
    assert len(short) <= 240 and whole.startswith(short)
    assert "port the exporter" in short and "ZK-10000004" not in short
    empty = SessionContext(project="new", token_budget=2000, approx_tokens=0)
    assert render_start(empty, 2000) == ""  # nothing to say: nothing injected


def test_the_failure_is_matched_on_its_error_line_and_its_command_kept_on_one_line() -> None:
    output = "collecting ...\nE   ImportError: cannot import name 'Retry'\n1 failed in 0.2s\n"
    assert error_signature(output) == "E   ImportError: cannot import name 'Retry'"
    assert error_signature("ok\n3 failed, 2 passed\ndone\n") == "3 failed, 2 passed"
    assert error_signature("a\nfatal: not a git repository\ntrailing\n") == \
        "fatal: not a git repository"
    assert error_signature("plain\nlast line\n") == "last line"
    assert error_signature("") == "(no output)"
    assert one_line("  pytest   -x\n tests ") == "pytest -x tests"
