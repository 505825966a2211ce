"""The MCP server's warm-up has Neo4j plan the search statements before the first agent call,
writes nothing while doing it, and fails soft when Neo4j is down."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from kg_brain.enrichment.embed import Embedder
from kg_brain.root.app import Brain
from kg_brain.store import db as store_db
from kg_brain.store.db import Database
from kg_brain.store.localdb.server import free_port
from kg_brain.surfaces.transport import WARM_UP_PROJECT, WarmUp
from tests.support.brains import make_brain, make_settings

SEARCHES = ["search/search_memory", "search/deep_search", "mistakes/preflight_mistakes"]


def test_the_warm_up_runs_each_search_statement_once_and_writes_nothing(
        db: Database, embedder: Embedder, monkeypatch: pytest.MonkeyPatch) -> None:
    ran: list[tuple[str, str]] = []
    run = store_db.Tx.run

    def recorded(tx: store_db.Tx, name: str, mode: store_db.Mode, params: dict[str, Any],
                 *args: tuple[str, ...]) -> list[store_db.Row]:
        ran.append((name, mode))
        return run(tx, name, mode, params, *args)

    monkeypatch.setattr(store_db.Tx, "run", recorded)
    brain = make_brain(db, embedder)
    warm = WarmUp(brain)
    warm.listed.set()  # as after the client's tools/list
    warm._start()
    assert warm.done.wait(300)
    # in order, each once (a run past the transaction timeout, planning on a loaded server,
    # is tried again)
    assert list(dict.fromkeys(name for name, _ in ran if name in SEARCHES)) == SEARCHES
    assert {mode for _, mode in ran} == {"read"}
    records, _, _ = db.driver.execute_query(
        "MATCH (n) WHERE n.project = $p RETURN count(n) AS c", p=WARM_UP_PROJECT)
    assert records[0]["c"] == 0


def test_the_warm_up_logs_and_ends_when_neo4j_is_down(
        embedder: Embedder, caplog: pytest.LogCaptureFixture) -> None:
    settings = make_settings(neo4j_uri=f"bolt://127.0.0.1:{free_port()}",
                             neo4j_password="unused", neo4j_timeout_s=5.0)
    brain = Brain(settings, embedder=embedder)
    warm = WarmUp(brain)
    warm.listed.set()
    with caplog.at_level(logging.WARNING, logger="kg_brain.surfaces.transport"):
        warm._start()
        assert warm.done.wait(120)
    assert "warm-up of the search plans failed" in caplog.text
    brain.close()  # waits for nothing: the warm-up has ended
