"""A short run of the HTTP load test: 16 concurrent MCP clients writing and searching against
one server, in a project that already holds a note (as `bench scale --clients` runs them), lose
no acknowledged write and never share an id (timings are the benchmark's business:
`kg-brain bench load`, docs/BENCHMARKS.md)."""

from __future__ import annotations

from bench.common import delete_bench_project
from bench.load import run_load
from kg_brain.enrichment.embed import SentenceTransformerEmbedder
from kg_brain.store.db import Database
from tests.support.brains import make_brain
from tests.support.mcp import server_env
from tests.support.neo4j import ServerUnderTest


def test_sixteen_http_clients_lose_no_write_and_share_no_id(
        neo4j_server: ServerUnderTest, db: Database, embedder: SentenceTransformerEmbedder,
        project: str) -> None:
    scratch = f"bench-load-{project}"
    try:
        make_brain(db, embedder).writer.add(
            "The release checklist lives in docs/RELEASING.md and names the signing key owner.",
            scratch)
        result = run_load(db, server_env(neo4j_server), clients=16, duration_s=20,
                          project=scratch)
    finally:
        delete_bench_project(db, scratch)
    writes = result["writes"]
    assert writes["writes_acknowledged"] > 0, result
    assert writes["lost_writes"] == 0 and writes["duplicate_ids"] == 0, result
    # the note the project held before the run is no write of the run's
    assert writes["stored_but_unacknowledged"] == 0, result
    assert all(t["calls"] > 0 for t in result["tools"].values()), result
    assert result["server_tracebacks"] == 0, result
