"""`kg-brain wire opencode`: the entry is added or updated, the rest kept, a backup made."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from kg_brain.errors import InvalidInput
from kg_brain.wire import opencode_entry, server_command, server_environment, wire_opencode
from tests.support.brains import make_settings
from tests.support.mcp import REPO

EXISTING = {"$schema": "https://opencode.ai/config.json", "theme": "opencode",
            "mcp": {"other": {"type": "remote", "url": "http://x/mcp"},
                    "kg-brain": {"type": "local", "command": ["old"], "enabled": False}}}


def test_the_entry_spawns_this_checkouts_server_with_python() -> None:
    assert server_command() == [sys.executable, str(REPO / "mcp_server.py")]
    entry = opencode_entry(server_command(), {})
    assert entry == {"type": "local", "command": server_command(), "enabled": True}


def test_wiring_updates_the_entry_keeps_the_rest_and_backs_up(tmp_path: Path) -> None:
    path = tmp_path / "opencode.json"
    original = json.dumps(EXISTING, indent=2)
    path.write_text(original)
    backup = wire_opencode(path, opencode_entry(["python", "mcp_server.py"], {}))
    config = json.loads(path.read_text())
    assert config["theme"] == "opencode" and config["mcp"]["other"] == EXISTING["mcp"]["other"]
    assert config["mcp"]["kg-brain"] == {"type": "local", "command": ["python", "mcp_server.py"],
                                         "enabled": True}
    assert backup is not None and backup.read_text() == original


def test_wiring_creates_a_missing_config(tmp_path: Path) -> None:
    path = tmp_path / "conf" / "opencode.json"
    assert wire_opencode(path, opencode_entry(["python", "mcp_server.py"], {})) is None
    assert json.loads(path.read_text())["mcp"]["kg-brain"]["enabled"] is True


def test_a_config_with_comments_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "opencode.json"
    path.write_text('{ // mine\n "theme": "x" }')
    with pytest.raises(InvalidInput, match="not plain JSON"):
        wire_opencode(path, opencode_entry(["python"], {}))
    assert path.read_text() == '{ // mine\n "theme": "x" }'


def test_a_project_config_references_the_password_instead_of_holding_it() -> None:
    settings = make_settings(neo4j_uri="bolt://db:7687", neo4j_password="s3cret")
    assert server_environment(settings, global_config=False)["NEO4J_PASSWORD"] == \
        "{env:NEO4J_PASSWORD}"
    assert server_environment(settings, global_config=True)["NEO4J_PASSWORD"] == "s3cret"
