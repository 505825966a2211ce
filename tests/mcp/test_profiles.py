"""Tool profiles: `core` offers what the README's core table lists, with those parameters;
`full` offers every tool; a call outside a client's profile is refused with the way to get it;
and one HTTP service serves each request the profile it names."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client, FastMCP
from fastmcp.client.transports import StdioTransport, StreamableHttpTransport
from fastmcp.exceptions import ToolError

from kg_brain.base.settings import load_settings
from kg_brain.root.app import Brain
from kg_brain.store.localdb import free_port
from kg_brain.surfaces.profiles import CORE
from kg_brain.surfaces.tools import build_server
from kg_brain.surfaces.wire import server_command
from tests.mcp.test_contract import CONTRACT, DEAD_URI
from tests.mcp.test_http import http_server
from tests.support.mcp import REPO, server_env
from tests.support.neo4j import ServerUnderTest

README_ROW = re.compile(r"^\| `(\w+)\(([^)]*)\)`")


def readme_table(heading: str) -> dict[str, list[str]]:
    """Tool name -> parameters, from the README table whose first column is `heading`."""
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    start = lines.index(f"| {heading} | When to use |")
    rows: dict[str, list[str]] = {}
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        for cell in line.split(" | ")[0].lstrip("| ").split(" / "):
            found = README_ROW.match(f"| {cell}")
            assert found, cell
            rows[found[1]] = [p.strip() for p in found[2].split(",") if p.strip()]
    return rows


def offline(profile: str | None) -> FastMCP:
    """A server on no database; `profile` None: the setting's default."""
    chosen = {} if profile is None else {"kg_brain_tools": profile}
    return build_server(Brain(load_settings(_env_file=None, neo4j_uri=DEAD_URI,
                                            neo4j_timeout_s=2, **chosen)))


def listed(target: Any) -> dict[str, list[str]]:
    async def run() -> dict[str, list[str]]:
        async with Client(target) as client:
            return {t.name: list(t.input_schema["properties"]) for t in await client.list_tools()}

    return anyio.run(run)


def test_the_core_profile_is_the_readmes_core_table_with_its_parameters() -> None:
    assert readme_table("Tool (core)") == listed(offline("core"))
    assert set(CORE) == set(listed(offline("core")))


def test_the_full_profile_is_every_tool_and_the_readme_lists_the_rest() -> None:
    full = listed(offline("full"))
    assert set(full) == set(CONTRACT)
    assert readme_table("Tool (full only)") == {n: p for n, p in full.items() if n not in CORE}


def test_the_protocol_calls_only_core_tools_before_its_full_profile_section() -> None:
    protocol = (REPO / "AGENTS.md").read_text(encoding="utf-8")
    core_part, full_part = protocol.split("## Only with the full tool profile")
    assert set(re.findall(r"`(\w+)\(", core_part)) == set(CORE)
    assert set(re.findall(r"`(\w+)\(", full_part)) <= set(CONTRACT)


def test_a_client_naming_no_profile_gets_core(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KG_BRAIN_TOOLS", raising=False)
    assert set(listed(offline(None))) == set(CORE)


def test_a_call_outside_the_profile_is_refused_with_the_way_to_get_it() -> None:
    async def run() -> None:
        async with Client(offline("core")) as client:
            await client.call_tool("list_notes", {})

    with pytest.raises(ToolError, match=r"list_notes is not offered.*'core'.*--tools full"):
        anyio.run(run)


def test_a_stdio_entry_gets_the_profile_its_command_names(neo4j_server: ServerUnderTest,
                                                         tmp_path: Path) -> None:
    """What `kg-brain wire` writes (`kg-brain mcp --tools core`) wins over KG_BRAIN_TOOLS."""
    command = server_command("core")
    env = server_env(neo4j_server, PYTHONPATH=str(REPO))
    transport = StdioTransport(command[0], command[1:], env=env, cwd=str(tmp_path))
    assert env["KG_BRAIN_TOOLS"] == "full"
    assert set(listed(transport)) == set(CORE)


def test_one_service_serves_each_request_the_profile_it_names(
        neo4j_server: ServerUnderTest, tmp_path: Path) -> None:
    """KG_BRAIN_TOOLS is the service's default; the URL or the header names a client's own."""
    env = server_env(neo4j_server, KG_BRAIN_HTTP_AUTH="none", KG_BRAIN_TOOLS="core")
    with http_server(env, "127.0.0.1", free_port(), tmp_path) as url:
        assert set(listed(StreamableHttpTransport(url))) == set(CORE)
        assert set(listed(StreamableHttpTransport(url + "?tools=full"))) == set(CONTRACT)
        assert set(listed(StreamableHttpTransport(url + "?project=p&tools=core"))) == set(CORE)
        named = StreamableHttpTransport(url, headers={"X-KG-Brain-Tools": "full"})
        assert set(listed(named)) == set(CONTRACT)
        with pytest.raises(Exception, match="tool profile the request names"):
            listed(StreamableHttpTransport(url + "?tools=everything"))
