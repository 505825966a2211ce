"""Every saved Neo4j Browser query runs against the real server with its parameters, the null
parameters of the guide pick sensible defaults, and `kg-brain browse` says how to get the guide."""

from __future__ import annotations

import argparse
import uuid
from typing import Any

import pytest

from kg_brain.base.cypher import all_query_names, query
from kg_brain.domain.lifecycle import decay_score
from kg_brain.enrichment.embed import SentenceTransformerEmbedder
from kg_brain.store.db import Database
from kg_brain.surfaces.cli import browse
from kg_brain.views.guide import DECAY_CONSTANTS
from tests.support.brains import Graph, make_brain, settings_for, small_graph

BROWSER = [name for name in all_query_names() if name.startswith("browser/")]


def _run(db: Database, name: str, **params: Any) -> list[dict[str, Any]]:
    """A saved query as the Browser runs it: people's queries, not store statements."""
    return db.read_tx(lambda tx: tx.run(name, "read", params))


@pytest.fixture(scope="module")
def graph(db: Database, embedder: SentenceTransformerEmbedder) -> tuple[str, Graph]:
    project = f"test-browser-{uuid.uuid4().hex[:8]}"
    brain = make_brain(db, embedder)
    g = small_graph(brain, project)
    brain.writer.add("Run pytest with -x to stop at the first failing test.", project)
    return project, g


def _params(project: str, **given: Any) -> dict[str, Any]:
    return {"project": project, "zk_id": None, "entity": None, "decay": DECAY_CONSTANTS} | given


def test_every_saved_query_declares_its_parameters() -> None:
    assert len(BROWSER) >= 9
    for name in BROWSER:
        text = query(name)
        assert text.startswith("//") and "params:" in text and "returns:" in text


@pytest.mark.parametrize("name", BROWSER)
def test_saved_query_runs_with_params(db: Database, graph: tuple[str, Graph], name: str) -> None:
    project, _ = graph
    rows = _run(db, name, **_params(project))
    if name not in ("browser/clusters", "browser/pick_project"):  # no near-duplicates here;
        assert rows, f"{name} returned nothing"  # the picker looks at every project


def test_mistakes_query_shows_the_fix(db: Database, graph: tuple[str, Graph]) -> None:
    project, _ = graph
    rows = _run(db, "browser/mistakes_with_fixes", project=project)
    assert rows[0]["fixed"] is True
    assert any(r["p"] is not None for r in rows)


def test_history_of_a_given_note_lists_its_revisions(db: Database,
                                                     graph: tuple[str, Graph]) -> None:
    project, g = graph
    rows = _run(db, "browser/note_history", **_params(project, zk_id=g.revised))
    assert [r["version"] for r in rows] == [1] and rows[0]["cause"] == "update"


def test_null_zk_id_means_the_most_revised_note(db: Database, graph: tuple[str, Graph]) -> None:
    project, g = graph
    rows = _run(db, "browser/note_history", **_params(project))
    assert {r["n"]["zk_id"] for r in rows} == {g.revised}


def test_null_zk_id_means_the_best_linked_note(db: Database, graph: tuple[str, Graph]) -> None:
    project, g = graph
    default = _run(db, "browser/note_neighbourhood", **_params(project))
    given = _run(db, "browser/note_neighbourhood", **_params(project, zk_id=g.pinned))
    assert {r["n"]["zk_id"] for r in given} == {g.pinned}
    hub = default[0]["n"]["zk_id"]
    degree = {r["zk_id"]: r["links"] for r in db.driver.execute_query(
        "MATCH (n:Note {project: $p}) RETURN n.zk_id AS zk_id, "
        "COUNT { (n)-[r]-(:Note) WHERE type(r) <> 'FOLLOWS' } AS links",  # typed: no session order
        p=project, database_=db.conn.database).records}
    assert degree[hub] == max(degree.values())


def test_null_entity_means_the_most_mentioned(db: Database, graph: tuple[str, Graph]) -> None:
    project, g = graph
    rows = _run(db, "browser/entity_notes", **_params(project))
    assert {r["e"]["key"] for r in rows} == {"pytest"}  # written by the write path: 3 notes
    about = {r["p"][0]["zk_id"] for r in rows}  # p: n, MENTIONS, e
    assert len(about) == 3 and {g.mistake, g.fix} <= about
    named = _run(db, "browser/entity_notes", **_params(project, entity="neo4j driver"))
    assert len(named) == 2


def test_entity_map_counts_mentions(db: Database, graph: tuple[str, Graph]) -> None:
    project, _ = graph
    rows = _run(db, "browser/entity_map", project=project)
    counted = {(r["e"]["key"], r["mentions"]) for r in rows}
    assert {("pytest", 3), ("neo4j driver", 2)} <= counted
    assert all(r["mentions"] == r["e"]["notes"] for r in rows)  # the stored live count agrees


def test_decay_view_computes_the_lifecycle_score(db: Database, graph: tuple[str, Graph]) -> None:
    project, g = graph
    rows = _run(db, "browser/decay_next", **_params(project))
    assert g.pinned not in {r["n"]["zk_id"] for r in rows}  # pinned notes never decay
    for r in rows:
        expected = decay_score(r["days_idle"], r["access_count"], r["inbound"])
        assert r["score"] == pytest.approx(expected, abs=2e-3)
    assert [r["score"] for r in rows] == sorted(r["score"] for r in rows)


def test_browse_on_a_local_server_says_the_guide_opens(db: Database, capsys: Any,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(browse, "docker_engine_available", lambda: False)
    settings = settings_for(db, neo4j_uri=None, neo4j_http_port=7999, kg_brain_browser_port=8799)
    args = argparse.Namespace(project="proj", serve=False, screenshots=None)
    assert browse.cmd_browse(args, settings) == 0
    out = capsys.readouterr().out
    assert "http://127.0.0.1:7999/browser/" in out and "127.0.0.1:8799" in out
    assert ":param project => 'proj'" in out and ":guide" not in out


def test_browse_elsewhere_prints_the_commands_to_type(db: Database, capsys: Any) -> None:
    settings = settings_for(db, kg_brain_browser_port=8799)
    args = argparse.Namespace(project=None, serve=False, screenshots=None)
    assert browse.cmd_browse(args, settings) == 0
    out = capsys.readouterr().out
    assert ":style http://localhost:8799/kg-brain.grass" in out
    assert ":guide http://localhost:8799/guide.html" in out and "--serve" in out
