"""Stateless servers: two HTTP server processes on one database serve one memory while both
write; each sees what the other wrote."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport

from kg_brain.store.localdb import free_port
from tests.mcp.test_http import http_server
from tests.support.mcp import server_env
from tests.support.neo4j import ServerUnderTest

FACTS = {
    "a": [f"Service alpha-{i} exposes metrics on port {9100 + i} for the scraper."
          for i in range(6)],
    "b": [f"Queue beta-{i} keeps dead letters for {i + 2} days before purging them."
          for i in range(6)],
}


async def _write_all(url: str, facts: list[str]) -> list[str]:
    async with Client(StreamableHttpTransport(url)) as client:
        ids = []
        for fact in facts:
            result = await client.call_tool("add_memory", {"content": fact})
            ids.append(str(result.structured_content["zk_id"]))
        return ids


async def _search(url: str, query: str) -> list[dict[str, Any]]:
    async with Client(StreamableHttpTransport(url)) as client:
        result = await client.call_tool("search_memory", {"query": query, "top_k": 3})
        return list(result.structured_content["hits"])


def test_two_http_servers_share_one_memory_while_both_write(
    neo4j_server: ServerUnderTest, project: str, tmp_path: Path
) -> None:
    # memory shared between processes is the subject here, not access (tests/mcp/test_http.py)
    env = server_env(neo4j_server, KG_BRAIN_PROJECT=project, KG_BRAIN_HTTP_AUTH="none")
    with http_server(env, "127.0.0.1", free_port(), tmp_path) as url_a, \
            http_server(env, "127.0.0.1", free_port(), tmp_path) as url_b:
        written: dict[str, list[str]] = {}

        async def both() -> None:
            async def one(name: str, url: str) -> None:
                written[name] = await _write_all(url, FACTS[name])

            async with anyio.create_task_group() as tg:
                tg.start_soon(one, "a", url_a)
                tg.start_soon(one, "b", url_b)

        anyio.run(both)
        assert len(set(written["a"] + written["b"])) == 12
        from_b = anyio.run(_search, url_b, "which port does alpha-3 expose metrics on?")
        from_a = anyio.run(_search, url_a, "how long does beta-4 keep dead letters?")
        assert from_b[0]["zk_id"] == written["a"][3]
        assert from_a[0]["zk_id"] == written["b"][4]
