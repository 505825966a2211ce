"""MCP fixtures: the real server over a Brain built from the shared test database and embedder,
driven through a real fastmcp Client in memory. The workspace project is the test's project."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client, FastMCP

from kg_brain.app import Brain
from kg_brain.db import Database
from kg_brain.embed import SentenceTransformerEmbedder
from kg_brain.server import build_server
from kg_brain.settings import Settings, load_settings
from tests.conftest import ServerUnderTest

REPO = Path(__file__).resolve().parents[2]


def make_settings(**overrides: Any) -> Settings:
    base: dict[str, Any] = {"llm_provider": "heuristic", "scheduler_in_server": False}
    return load_settings(**{**base, **overrides})


@pytest.fixture
def brain(db: Database, embedder: SentenceTransformerEmbedder, project: str) -> Iterator[Brain]:
    yield Brain(make_settings(kg_brain_project=project), db=db, embedder=embedder)


@pytest.fixture
def server(brain: Brain) -> FastMCP:
    return build_server(brain)


def call(server: FastMCP, tool: str, **arguments: Any) -> dict[str, Any]:
    """One tool call through a real MCP client session; returns the structured result."""

    async def run() -> dict[str, Any]:
        async with Client(server) as client:
            result = await client.call_tool(tool, arguments)
            assert result.structured_content is not None
            return dict(result.structured_content)

    return anyio.run(run)


def server_env(neo4j_server: ServerUnderTest, **extra: str) -> dict[str, str]:
    """The environment OpenCode would give a spawned server: connection settings only."""
    conn = neo4j_server.conn
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
    env.update({"NEO4J_URI": conn.uri, "NEO4J_USER": conn.user,
                "NEO4J_PASSWORD": conn.password or "", "NEO4J_DATABASE": conn.database,
                "LLM_PROVIDER": "heuristic", "SCHEDULER_IN_SERVER": "false", **extra})
    return env
