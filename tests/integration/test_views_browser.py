"""Every saved Neo4j Browser query runs against the real server with its parameters."""

from __future__ import annotations

import argparse
import uuid
from typing import Any

import pytest

from kg_brain.cypher import all_query_names, query
from kg_brain.db import Database
from kg_brain.embed import SentenceTransformerEmbedder
from kg_brain.cli import data as cli
from kg_brain.cli.data import GRASS
from tests.support.brains import Graph, make_brain, settings_for, small_graph

BROWSER = [name for name in all_query_names() if name.startswith("browser/")]


def _run(db: Database, name: str, **params: Any) -> list[dict[str, Any]]:
    """A saved query as the Browser runs it: people's queries, not store statements."""
    return db.read_tx(lambda tx: tx.run(name, "read", params))


@pytest.fixture(scope="module")
def graph(db: Database, embedder: SentenceTransformerEmbedder) -> tuple[str, Graph]:
    project = f"test-browser-{uuid.uuid4().hex[:8]}"
    return project, small_graph(make_brain(db, embedder), project)


def test_every_saved_query_declares_its_parameters() -> None:
    assert len(BROWSER) >= 6
    for name in BROWSER:
        text = query(name)
        assert text.startswith("//") and "params:" in text
        assert "$project" in text or "$zk_id" in text


@pytest.mark.parametrize("name", BROWSER)
def test_saved_query_runs_with_params(db: Database, graph: tuple[str, Graph], name: str) -> None:
    project, g = graph
    zk_id = g.mistake if "neighbourhood" in name else g.revised
    rows = _run(db, name, project=project, zk_id=zk_id)
    if name != "browser/clusters":  # the small graph has no near-duplicates
        assert rows, f"{name} returned nothing"


def test_mistakes_query_shows_the_fix(db: Database, graph: tuple[str, Graph]) -> None:
    project, g = graph
    rows = _run(db, "browser/mistakes_with_fixes", project=project)
    assert rows[0]["fixed"] is True
    assert any(r["p"] is not None for r in rows)


def test_history_query_lists_revisions(db: Database, graph: tuple[str, Graph]) -> None:
    _, g = graph
    rows = _run(db, "browser/note_history", zk_id=g.revised)
    assert [r["version"] for r in rows] == [1] and rows[0]["cause"] == "update"


def test_browse_prints_url_style_and_params(db: Database, capsys: Any) -> None:
    settings = settings_for(db, neo4j_uri=None, neo4j_http_port=7999)
    assert cli.cmd_browse(argparse.Namespace(project="proj"), settings) == 0
    out = capsys.readouterr().out
    assert "http://127.0.0.1:7999/browser/" in out and str(GRASS) in out
    assert ":param project => 'proj'" in out and "note_history.cypher" in out
    assert 'caption: "{title}";' in GRASS.read_text(encoding="utf-8")
