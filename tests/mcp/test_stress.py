"""Several real stdio servers (OpenCode windows) write and search one project at once: no note
lost, merged or duplicated, no link lost, no error surfaced, every evolution job done once.
The full-size run is `python -m bench.stress`."""

from __future__ import annotations

from bench.stress import run_once
from kg_brain.root.app import Brain
from tests.support.mcp import server_env
from tests.support.neo4j import ServerUnderTest


def test_three_servers_writing_and_searching_lose_nothing(
        neo4j_server: ServerUnderTest, brain: Brain, project: str) -> None:
    # The degree bound drops a note's weakest similarity links as later notes arrive, by design
    # (LINK_TOP_K, 5 by default); above the 45 notes' possible degree nothing may drop, so any
    # reported link missing from the graph is a lost write.
    env = server_env(neo4j_server, LINK_TOP_K="50")
    report = run_once(brain, env, processes=3, notes=15, project=project, drain_workers=3,
                      drain_during=True)
    checks = report["checks"]
    assert report["errors"] == [] and report["server_tracebacks"] == 0
    assert checks["notes_in_graph"] == 45 and checks["dedup_hits"] == 0
    assert checks["links_reported"] > 0 and checks["links_lost"] == 0
    assert checks["jobs_total"] == checks["jobs_queued"] > 0
    assert checks["ok"], checks
