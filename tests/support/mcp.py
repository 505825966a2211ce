"""Driving the MCP server as a client does: in memory through fastmcp's Client, or spawned."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio
from fastmcp import Client, FastMCP

from kg_brain.base.private import service_token
from kg_brain.base.settings import load_settings
from tests.support.neo4j import ServerUnderTest

REPO = Path(__file__).resolve().parents[2]


def call(server: FastMCP, tool: str, **arguments: Any) -> dict[str, Any]:
    """One tool call through a real MCP client session; returns the structured result."""

    async def run() -> dict[str, Any]:
        async with Client(server) as client:
            result = await client.call_tool(tool, arguments)
            assert result.structured_content is not None
            return dict(result.structured_content)

    return anyio.run(run)


def server_env(neo4j_server: ServerUnderTest, **extra: str) -> dict[str, str]:
    """The environment OpenCode would give a spawned server: connection settings only, every
    tool offered (a wired entry names its own profile), and `kg-brain mcp` serving in-process
    (never a developer's shared service on the default port; the relay tests give theirs)."""
    conn = neo4j_server.conn
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
    env.update({"NEO4J_URI": conn.uri, "NEO4J_USER": conn.user,
                "NEO4J_PASSWORD": conn.password or "", "NEO4J_DATABASE": conn.database,
                "LLM_PROVIDER": "heuristic", "SCHEDULER_IN_SERVER": "false",
                "KG_BRAIN_SERVICE": "false", "KG_BRAIN_TOOLS": "full", **extra})
    return env


def bearer(env: dict[str, str]) -> dict[str, str]:
    """The Authorization header for the HTTP service started with `env`: the token it made in
    its data folder (or its KG_BRAIN_HTTP_TOKEN)."""
    names = ("KG_BRAIN_DATA_DIR", "KG_BRAIN_HTTP_TOKEN")
    settings = load_settings(_env_file=None, **{n.lower(): env[n] for n in names if n in env})
    token = service_token(settings)
    assert token, "the service made no token"
    return {"Authorization": f"Bearer {token}"}
