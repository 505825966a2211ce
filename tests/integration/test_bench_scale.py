"""The scale benchmark and the report generator on a few hundred notes, so they never rot."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bench import report
from bench.scale import run
from kg_brain.app import Brain
from kg_brain.db import Database
from kg_brain.embed import SentenceTransformerEmbedder
from tests.support.brains import make_settings
from tests.support.neo4j import ServerUnderTest


@pytest.fixture
def server_env(neo4j_server: ServerUnderTest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cold-start probe spawns a server: point it at the test database."""
    conn = neo4j_server.conn
    monkeypatch.setenv("NEO4J_URI", conn.uri)
    monkeypatch.setenv("NEO4J_PASSWORD", conn.password or "")


def test_scale_bench_and_report_on_a_tiny_corpus(
    db: Database, embedder: SentenceTransformerEmbedder, server_env: None, tmp_path: Path
) -> None:
    brain = Brain(make_settings(neo4j_uri=os.environ["NEO4J_URI"]), db=db, embedder=embedder)
    result = run(brain, sizes=[200], queries=4, adds=3, keep=False, warmup_s=0.5)
    entry = result["sizes"]["200"]
    assert entry["bulk_import_notes_per_s"] > 0 and entry["raw_embedding_notes_per_s"] > 0
    assert entry["embedding_runtime"] == embedder.runtime  # raw figure from the app's embedder
    assert entry["add_memory"]["n"] == 3
    for name in ("search_memory", "deep_search"):
        assert entry[name]["db"]["p50_ms"] <= entry[name]["total"]["p50_ms"]
    assert entry["raw_vector_query"]["n"] == 4 and entry["deep_to_raw_ratio"] > 0
    assert entry["archive_dry_run"]["n"] == 3
    assert result["cold_start"]["tools_list_s"] > 0
    scale_file = tmp_path / "scale.json"
    scale_file.write_text(json.dumps(result))
    retrieval_file = tmp_path / "retrieval.json"
    retrieval_file.write_text(json.dumps({"methods": {"vector": {
        "overall": {**dict.fromkeys(report.METRICS, 50.0), "mrr": 0.5},
        "by_category": {"1": {**dict.fromkeys(report.METRICS, 25.0), "mrr": 0.25}}}}}))
    text = report.render([scale_file, retrieval_file], tmp_path / "out")
    assert "| bulk import, notes/s |" in text and "| vector | 50.0 |" in text
    assert "| 0.500 |" in text and "| vector | 25.0 |" in text
    for png in ("scale-latency.png", "scale-throughput.png", "retrieval-recall10.png"):
        assert (tmp_path / "out" / png).stat().st_size > 1000
