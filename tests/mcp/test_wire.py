"""`kg-brain wire opencode|claude|cursor`: the entry is added or updated, the rest of the file
kept, a backup made; stdio entries run the installed module (a workspace's through the launcher
in kg-brain's user folder), remote ones point at a URL; and the whole thing works from an
installed wheel, with no path into a checkout or to this interpreter in the workspace."""

from __future__ import annotations

import json
import re
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from bench.repos import git, repository
from kg_brain.base.errors import InvalidInput
from kg_brain.base.settings import load_settings
from kg_brain.surfaces.machine import launched_command
from kg_brain.surfaces.wire import (
    client_entry,
    config_path,
    server_command,
    url_hint,
    workspace_url,
    write_entry,
)
from tests.support.brains import make_settings
from tests.support.mcp import REPO, server_env
from tests.support.neo4j import ServerUnderTest

URL = "http://127.0.0.1:8765/mcp"
EXISTING: dict[str, dict[str, Any]] = {
    "opencode": {"$schema": "https://opencode.ai/config.json", "theme": "opencode",
                 "mcp": {"other": {"type": "remote", "url": "http://x/mcp"},
                         "kg-brain": {"type": "local", "command": ["old"], "enabled": False}}},
    "claude": {"mcpServers": {"other": {"type": "stdio", "command": "other-server", "args": []},
                              "kg-brain": {"type": "stdio", "command": "old", "args": []}}},
    "cursor": {"mcpServers": {"other": {"url": "http://x/mcp"},
                              "kg-brain": {"command": "old", "args": []}},
               "theme": "dark"},
}
SECTION = {"opencode": "mcp", "claude": "mcpServers", "cursor": "mcpServers"}


def test_the_stdio_command_runs_the_installed_module_not_a_checkout_file() -> None:
    assert server_command("core") == [sys.executable, "-m", "kg_brain.surfaces.cli", "mcp",
                                      "--tools", "core"]
    checkout = (str(REPO / "mcp_server.py"), str(REPO / "kg_brain"))
    assert not any(part.startswith(checkout) for part in server_command("core"))


def test_each_client_gets_its_own_stdio_entry_shape_running_the_launcher() -> None:
    """A workspace's entry runs the launcher in kg-brain's user folder (the same on every
    machine), a global one this interpreter."""
    settings = make_settings()
    shell, *args = launched = launched_command(["mcp", "--tools", "full"])
    assert client_entry(settings, "opencode", None) == {
        "type": "local", "command": launched, "enabled": True}
    assert client_entry(settings, "claude", None) == {"type": "stdio", "command": shell,
                                                      "args": args}
    assert client_entry(settings, "cursor", None) == {"command": shell, "args": args}
    assert sys.executable not in json.dumps(launched)
    assert client_entry(settings, "opencode", None, global_config=True)["command"] == \
        server_command("full")


def test_each_client_gets_its_own_remote_entry_shape_with_a_token_reference() -> None:
    settings = make_settings(kg_brain_http_token="t0ken", kg_brain_tools="core")
    named = URL + "?tools=core"
    assert client_entry(settings, "opencode", URL, global_config=True) == {
        "type": "remote", "url": named, "enabled": True, "oauth": False,
        "headers": {"Authorization": "Bearer {env:KG_BRAIN_HTTP_TOKEN}"}}
    assert client_entry(settings, "claude", URL, global_config=True) == {
        "type": "http", "url": named,
        "headers": {"Authorization": "Bearer ${KG_BRAIN_HTTP_TOKEN}"}}
    assert client_entry(settings, "cursor", URL, global_config=True) == {
        "url": named, "headers": {"Authorization": "Bearer ${env:KG_BRAIN_HTTP_TOKEN}"}}
    assert "headers" not in client_entry(make_settings(kg_brain_http_auth="none"), "cursor", URL,
                                         global_config=True)


def test_by_default_opencode_reads_the_token_file_and_the_others_their_environment(
        tmp_path: Path) -> None:
    settings = make_settings(kg_brain_data_dir=tmp_path / "data")
    assert client_entry(settings, "opencode", URL)["headers"] == {
        "Authorization": f"Bearer {{file:{tmp_path}/data/state/token}}"}
    assert client_entry(settings, "claude", URL)["headers"] == {
        "Authorization": "Bearer ${KG_BRAIN_HTTP_TOKEN}"}
    at_home = make_settings(kg_brain_data_dir=Path.home() / ".local" / "share" / "kg-brain")
    assert client_entry(at_home, "opencode", URL)["headers"] == {
        "Authorization": "Bearer {file:~/.local/share/kg-brain/state/token}"}


def test_wire_url_makes_the_token_and_writes_only_a_reference_to_it(
        neo4j_server: ServerUnderTest, tmp_path: Path) -> None:
    env = server_env(neo4j_server, PYTHONPATH=str(REPO), KG_BRAIN_DATA_DIR=str(tmp_path / "data"),
                     XDG_CONFIG_HOME=str(tmp_path / "config"))
    done = subprocess.run([sys.executable, "-m", "kg_brain.surfaces.cli", "wire", "opencode",
                           "--url", URL, "--tools", "core"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
                          check=True)
    token = tmp_path / "data" / "state" / "token"
    assert f"reads the bearer token from {token}" in done.stdout
    assert stat.S_IMODE(token.stat().st_mode) == 0o600
    written = (tmp_path / "opencode.json").read_text()
    assert token.read_text().strip() not in written and f"{{file:{token}}}" in written
    assert json.loads(written)["mcp"]["kg-brain"]["url"].endswith("&tools=core")


OWN_LOG_LINE = re.compile(r"\d{4}-\d\d-\d\d [\d:,]+ (INFO|WARNING|ERROR) kg_brain\.[\w.]+: ")


@pytest.mark.parametrize("runtime", ["onnx-int8", "torch"])
def test_wire_prints_kg_brains_own_lines_only(neo4j_server: ServerUnderTest, tmp_path: Path,
                                              runtime: str) -> None:
    """Loading the model at the end of wiring shows no library's logging, progress bars or
    warnings: each stderr line is one of kg-brain's log records (the model cache is the
    developer's, so nothing is built)."""
    (tmp_path / ".git").mkdir()
    env = server_env(neo4j_server, PYTHONPATH=str(REPO), KG_BRAIN_DATA_DIR=str(tmp_path / "data"),
                     KG_BRAIN_CACHE_DIR=str(load_settings().kg_brain_cache_dir),
                     EMBEDDING_RUNTIME=runtime, XDG_CONFIG_HOME=str(tmp_path / "config"))
    done = subprocess.run([sys.executable, "-m", "kg_brain.surfaces.cli", "wire", "opencode"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
                          check=True)
    assert f"Embedding model ready: {runtime}" in done.stdout
    lines = done.stderr.splitlines()
    assert lines and [line for line in lines if not OWN_LOG_LINE.match(line)] == []


def test_wiring_a_url_before_the_first_commit_says_to_wire_again(tmp_path: Path) -> None:
    settings = make_settings(kg_brain_project=None)
    fresh = repository(tmp_path / "fresh", commits=0)
    assert "wire again after the first commit" in url_hint(settings, fresh)
    assert url_hint(settings, repository(tmp_path / "done")) == ""


def test_a_workspace_url_names_the_workspaces_repository(tmp_path: Path) -> None:
    (repository(tmp_path / "alpha proj") / "src").mkdir()
    inside = tmp_path / "alpha proj" / "src"
    root = git(inside, "rev-list", "--max-parents=0", "HEAD")
    settings = make_settings(kg_brain_project=None, kg_brain_tools="core")
    named = f"repo=git%3A{root}&name=alpha-proj&tools=core"
    assert workspace_url(settings, URL, inside) == f"{URL}?{named}"
    assert workspace_url(settings, URL + "?project=old&tools=full&x=1", inside) == \
        f"{URL}?x=1&{named}"
    assert workspace_url(make_settings(kg_brain_project="billing"), URL, inside) == \
        URL + "?project=billing&tools=full"


@pytest.mark.parametrize("client", ["opencode", "claude", "cursor"])
def test_wiring_updates_the_entry_keeps_the_rest_and_backs_up(client: str, tmp_path: Path
                                                              ) -> None:
    path = config_path(make_settings(), client, False, tmp_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    original = json.dumps(EXISTING[client], indent=2)
    path.write_text(original)
    entry = client_entry(make_settings(), client, None)
    backup = write_entry(path, client, entry, tmp_path / "state" / "wire-backups")
    config = json.loads(path.read_text())
    servers = config[SECTION[client]]
    assert servers["kg-brain"] == entry
    assert servers["other"] == EXISTING[client][SECTION[client]]["other"]
    assert {k: v for k, v in config.items() if k != SECTION[client]} == \
        {k: v for k, v in EXISTING[client].items() if k != SECTION[client]}
    assert backup is not None and backup.read_text() == original
    assert backup.parent == tmp_path / "state" / "wire-backups"
    assert [p.name for p in path.parent.iterdir() if p.name.endswith(".bak")] == []


@pytest.mark.parametrize(("client", "relative"), [("opencode", "opencode.json"),
                                                  ("claude", ".mcp.json"),
                                                  ("cursor", ".cursor/mcp.json")])
def test_wiring_creates_a_missing_file_where_the_client_reads_it(
        client: str, relative: str, tmp_path: Path) -> None:
    path = config_path(make_settings(), client, False, tmp_path)
    assert path == tmp_path / relative
    assert write_entry(path, client, client_entry(make_settings(), client, URL),
                       tmp_path / "backups") is None
    assert json.loads(path.read_text())[SECTION[client]]["kg-brain"]["url"].startswith(
        (URL + "?repo=", URL + "?project="))  # the working directory's workspace, or the setting


def test_a_config_with_comments_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "opencode.json"
    path.write_text('{ // mine\n "theme": "x" }')
    with pytest.raises(InvalidInput, match="not plain JSON"):
        write_entry(path, "opencode", client_entry(make_settings(), "opencode", None),
                    tmp_path / "backups")
    assert path.read_text() == '{ // mine\n "theme": "x" }'


def test_a_project_file_references_the_password_in_the_clients_syntax(tmp_path: Path) -> None:
    settings = make_settings(neo4j_uri="bolt://db:7687", neo4j_password="s3cret",
                             kg_brain_data_dir=tmp_path / "data")
    refs = {c: client_entry(settings, c, None)["environment" if c == "opencode" else "env"]
            ["NEO4J_PASSWORD"] for c in ("opencode", "claude", "cursor")}
    assert refs == {"opencode": "{env:NEO4J_PASSWORD}", "claude": "${NEO4J_PASSWORD}",
                    "cursor": "${env:NEO4J_PASSWORD}"}


def test_global_wiring_names_the_file_the_password_is_kept_in(
        neo4j_server: ServerUnderTest, project: str, tmp_path: Path) -> None:
    """`wire opencode --global` against a Neo4j of its own: neither the entry nor the plugin's
    settings hold the password; they name a 0600 file in the private state folder, and the
    entry serves with nothing else."""
    password = neo4j_server.conn.password or ""
    oc = tmp_path / "oc" / "opencode.json"
    env = server_env(neo4j_server, PYTHONPATH=str(REPO), KG_BRAIN_DATA_DIR=str(tmp_path / "data"),
                     XDG_CONFIG_HOME=str(tmp_path / "config"), OPENCODE_GLOBAL_CONFIG=str(oc))
    subprocess.run([sys.executable, "-m", "kg_brain.surfaces.cli", "wire", "opencode", "--global"],
                   cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=True)
    kept = tmp_path / "data" / "state" / "neo4j-password"
    written = [oc, oc.parent / "kg-brain.json",
               tmp_path / "config" / "kg-brain" / "opencode-plugin.json"]
    assert password and all(password not in path.read_text() for path in written)
    entry = json.loads(oc.read_text())["mcp"]["kg-brain"]
    assert entry["environment"]["NEO4J_PASSWORD_FILE"] == str(kept)
    start_env = json.loads(written[2].read_text())["start_env"]
    assert start_env["NEO4J_PASSWORD_FILE"] == str(kept) and "NEO4J_PASSWORD" not in start_env
    assert kept.read_text() == password and stat.S_IMODE(kept.stat().st_mode) == 0o600
    (tmp_path / project / ".git").mkdir(parents=True)
    served = {k: v for k, v in env.items() if k != "NEO4J_PASSWORD"} | entry["environment"]
    transport = StdioTransport(entry["command"][0], entry["command"][1:], env=served,
                               cwd=str(tmp_path / project))

    async def add() -> str:
        async with Client(transport) as client:
            saved = await client.call_tool("add_memory", {"content": "Global entries name files."})
            return str(saved.structured_content["project"])

    assert anyio.run(add) == project


def test_claude_codes_user_scope_is_left_to_its_own_command() -> None:
    with pytest.raises(InvalidInput, match="claude mcp add --scope user"):
        config_path(make_settings(), "claude", True)


@pytest.fixture(scope="module")
def installed_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """kg-brain built as a wheel and installed (without its dependencies, which this venv has)
    into a folder of its own: what a user gets from `pip install kg-brain`."""
    base = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(base / "dist"), str(REPO)], check=True, timeout=300)
    wheel = next((base / "dist").glob("kg_brain-*.whl"))
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target",
                    str(base / "site"), str(wheel)], check=True, timeout=300)
    return base / "site"


def test_wire_from_an_installed_wheel_writes_a_server_that_starts(
        installed_wheel: Path, neo4j_server: ServerUnderTest, project: str,
        tmp_path: Path) -> None:
    workspace = tmp_path / project
    (workspace / ".git").mkdir(parents=True)
    env = server_env(neo4j_server, PYTHONPATH=str(installed_wheel),
                     XDG_CONFIG_HOME=str(tmp_path / "config"))
    done = subprocess.run([sys.executable, "-m", "kg_brain.surfaces.cli", "wire", "claude"],
                          cwd=workspace,
                          env=env, capture_output=True, text=True, timeout=120, check=True)
    assert str(installed_wheel / "kg_brain" / "AGENTS.md") in done.stdout
    assert "Embedding model ready: onnx-int8" in done.stdout  # the first call will not load it
    entry = json.loads((workspace / ".mcp.json").read_text())["mcpServers"]["kg-brain"]
    assert str(REPO / "mcp_server.py") not in json.dumps(entry)
    assert str(REPO / "kg_brain") not in json.dumps(entry)
    assert sys.executable not in json.dumps(entry)  # the launcher in the user folder names it
    transport = StdioTransport(entry["command"], entry["args"], env=env, cwd=str(workspace))

    async def add() -> str:
        async with Client(transport) as client:
            saved = await client.call_tool("add_memory", {"content": "Wheels ship Cypher files."})
            return str(saved.structured_content["project"])

    assert anyio.run(add) == project
