"""The OpenCode plugin's install (`kg-brain wire opencode`) and the text its endpoint renders:
the workspace's settings the same on every machine, this machine's (the start command, the token
file, secrets by reference) in kg-brain's user folder, a user's budget kept; the start context cut
to whole lines within the budget; the error line a failure is matched on."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kg_brain.base.errors import InvalidInput
from kg_brain.base.settings import Settings
from kg_brain.domain.sessions import Handoff, Headline, MistakeHeadline, SessionContext
from kg_brain.store.localdb import free_port
from kg_brain.surfaces import machine, plugin
from kg_brain.surfaces.plugin_runs import judge
from kg_brain.surfaces.plugin_text import matching_lines, one_line, render_start
from kg_brain.surfaces.service import log_path
from kg_brain.surfaces.wire import CLIENTS, client_entry, server_environment, write_entry
from tests.support.brains import make_settings

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def machine_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """kg-brain's user folder of this test's machine (never the developer's)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return tmp_path / "config" / "kg-brain"


def test_install_copies_the_plugin_and_keeps_how_to_reach_and_start_the_service_on_the_machine(
        tmp_path: Path, machine_folder: Path) -> None:
    settings = make_settings(neo4j_uri="bolt://db.internal:7687", neo4j_password="s3cret",
                             kg_brain_http_port=9911, kg_brain_data_dir=tmp_path / "data")
    env = server_environment(settings, CLIENTS["opencode"], False)
    path = plugin.install(settings, None, False, env, cwd=tmp_path / "ws")

    assert path == tmp_path / "ws" / ".opencode" / "plugin" / "kg-brain.js"
    assert path.read_text() == plugin.SOURCE.read_text()
    for module in (plugin.COMMANDS, plugin.CONNECTION):
        assert path.with_name(module.name).read_text() == module.read_text()
    config = json.loads((tmp_path / "ws" / ".opencode" / "kg-brain.json").read_text())
    assert config == {"budget_tokens": settings.session_context_tokens,
                      "recall_budget_tokens": plugin.RECALL_BUDGET_TOKENS}
    here = json.loads((machine_folder / "opencode-plugin.json").read_text())
    assert here["url"] == "http://127.0.0.1:9911"
    assert here["start"] == [sys.executable, "-m", "kg_brain.surfaces.cli", "service", "start"]
    assert here["start_env"]["NEO4J_PASSWORD"] == "{env:NEO4J_PASSWORD}"  # never the secret
    assert here["start_env"]["KG_BRAIN_DATA_DIR"] == str(tmp_path / "data")
    assert "s3cret" not in json.dumps(here)
    assert here["token_file"] == str(tmp_path / "data" / "state" / "token")
    assert here["log_file"] == str(tmp_path / "data" / "state" / "service.log")


def test_an_upgrade_that_moved_the_command_module_heals_this_installations_machine_files(
        tmp_path: Path, machine_folder: Path) -> None:
    settings = make_settings(kg_brain_http_port=9911, kg_brain_data_dir=tmp_path / "data")
    assert machine.refresh() == []  # never wired: nothing written
    assert not machine_folder.exists()
    launcher = machine.write_launcher()
    plugin.install(settings, None, False, {}, cwd=tmp_path / "ws")
    settings_file = machine_folder / machine.PLUGIN_SETTINGS
    assert machine.refresh() == []  # current files are left alone
    launcher.write_text(machine.launcher_script().replace(  # the same folder's other name
        sys.executable, str(Path(sys.executable).with_name("python-other"))))
    assert machine.refresh() == []
    wired = json.loads(settings_file.read_text())
    launcher.write_text(machine.launcher_script().replace(
        machine.COMMAND_MODULE, "kg_brain.old_cli"))
    settings_file.write_text(json.dumps(
        {**wired, "start": [sys.executable, "-m", "kg_brain.old_cli", "service", "start"]}))

    assert machine.refresh() == [launcher, settings_file]
    assert launcher.read_text() == machine.launcher_script()
    assert os.access(launcher, os.X_OK)
    assert json.loads(settings_file.read_text()) == wired  # only the start command changed


def test_the_machine_files_of_another_installation_are_left_as_wired(
        tmp_path: Path, machine_folder: Path) -> None:
    plugin.install(make_settings(kg_brain_data_dir=tmp_path / "data"), None, False, {},
                   cwd=tmp_path / "ws")
    launcher = machine_folder / machine.LAUNCHER
    launcher.parent.mkdir(parents=True, exist_ok=True)
    other = "#!/bin/sh\nexec /opt/other/bin/python -m kg_brain.old_cli \"$@\"\n"
    launcher.write_text(other)
    settings_file = machine_folder / machine.PLUGIN_SETTINGS
    found = json.loads(settings_file.read_text())
    elsewhere = {**found, "start": ["/opt/other/bin/python", "-m", "kg_brain.old_cli"]}
    settings_file.write_text(json.dumps(elsewhere))

    assert machine.refresh() == []
    assert launcher.read_text() == other
    assert json.loads(settings_file.read_text()) == elsewhere


def test_two_machines_write_the_same_workspace_files(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """What wiring writes into a workspace is the same whoever wires it where: a teammate's
    clone or a moved installation finds its own interpreter and token by kg-brain's user folder;
    each machine's part differs and stays there."""
    written = []
    for name, port in (("mine", free_port()), ("theirs", free_port())):
        machine = tmp_path / name
        monkeypatch.setenv("XDG_CONFIG_HOME", str(machine / "config"))
        settings = make_settings(kg_brain_http_port=port, kg_brain_data_dir=machine / "data")
        workspace = tmp_path / "ws"
        shutil.rmtree(workspace, ignore_errors=True)
        write_entry(workspace / "opencode.json", "opencode",
                    client_entry(settings, "opencode", None), tmp_path / "backups")
        plugin.install(settings, None, False, {}, cwd=workspace)
        launcher = machine_launcher(settings)
        assert launcher == machine / "config" / "kg-brain" / "bin" / "kg-brain"
        files = {p.relative_to(workspace).as_posix(): p.read_text()
                 for p in sorted(workspace.rglob("*")) if p.is_file()}
        assert not any(str(machine) in text or sys.executable in text
                       for text in files.values())
        written.append(files)
    assert written[0] == written[1]
    assert set(written[0]) == {"opencode.json", ".opencode/kg-brain.json",
                               ".opencode/plugin/kg-brain.js",
                               ".opencode/plugin/kg-brain-commands.mjs",
                               ".opencode/plugin/kg-brain-service.mjs"}


def machine_launcher(settings: Settings) -> Path:
    """The launcher written for this interpreter, run as a workspace's entry runs it (`sh -c`,
    found by the rule): this installation answers, with this machine's settings."""
    path = machine.write_launcher()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "KG_BRAIN_DATA_DIR": str(
        settings.kg_brain_data_dir), "KG_BRAIN_HTTP_PORT": str(settings.kg_brain_http_port)}
    done = subprocess.run(machine.launched_command(["service", "status"]), capture_output=True,
                          text=True, timeout=60, env=env)
    assert json.loads(done.stdout)["log"] == str(log_path(settings)), done.stderr
    return path


def test_a_remote_service_is_named_in_the_workspace_and_never_started_and_budgets_are_kept(
        tmp_path: Path, machine_folder: Path) -> None:
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
    assert judge("pytest", 1, output).headline == "E   ImportError: cannot import name 'Retry'"
    assert judge("pytest", 1, "ok\n3 failed, 2 passed\ndone\n").headline == "3 failed, 2 passed"
    assert judge("git log", 128, "a\nfatal: not a git repository\ntrailing\n").headline == \
        "fatal: not a git repository"
    assert judge("x", 1, "plain\nlast line\n").headline == "last line"
    assert judge("x", 1, "").headline == "(no output)"
    assert one_line("  pytest   -x\n tests ") == "pytest -x tests"


def test_the_open_thread_written_with_the_last_handoff_is_not_repeated() -> None:
    ctx = context()
    thread = Handoff(zk_id="ZK-00000002", title="thread", created=None,
                     content="Objective: ship\nNext steps:\n- port the exporter")
    assert "ZK-00000002" not in render_start(ctx.model_copy(update={"open_thread": thread}), 2000)
    older = thread.model_copy(update={"created": "2026-01-01T00:00:00Z"})
    assert "ZK-00000002" in render_start(ctx.model_copy(update={"open_thread": older}), 2000)


def test_a_handoff_is_previewed_by_its_lines_that_share_words_with_the_message() -> None:
    handoff = ("Objective: Tidy the queue consumers\nCompleted:\n"
               "- asked: The audit consumer reads from the topic audit.events with 8 partitions\n"
               "- asked: Dana Whitfield approves consumer group renames\n"
               "- ran `make lint` (exit 0)\nNext steps:\n"
               "- follow up on: Retry poison messages twice")
    assert matching_lines(handoff, "How many partitions does the audit topic have?") == \
        "asked: The audit consumer reads from the topic audit.events with 8 partitions"
    both = matching_lines(handoff, "Who approves renames, and how often are poison messages "
                          "retried?")
    assert both == ("asked: Dana Whitfield approves consumer group renames; follow up on: Retry "
                    "poison messages twice")  # the best two, in the handoff's order
    assert matching_lines(handoff, "Write a haiku") == handoff  # no line shares a word
