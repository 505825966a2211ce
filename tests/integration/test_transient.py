"""Transient faults: a server that restarts mid-run (every connection killed, then refused for a
while) does not end a long run. The run's second local Neo4j (`own_neo4j`) is restarted, never
the shared one: the benchmark write loop (add_memory plus the evolution queue after each write)
and the scheduler's evolution drain log, wait it out and complete; nothing is lost or written
twice."""

from __future__ import annotations

import logging
import threading
import time

import pytest

from bench.datasets import Corpus, Turn
from bench.ingest import add_corpus
from bench.stress import note_texts
from kg_brain.enrichment.embed import SentenceTransformerEmbedder
from kg_brain.store.db import Database
from kg_brain.store.schema import bootstrap_schema
from kg_brain.surfaces.maintenance import Maintenance
from tests.support.brains import make_brain
from tests.support.neo4j import ServerUnderTest

TURNS = 24


def _count(db: Database, project: str) -> int:
    rows, _, _ = db.driver.execute_query(
        "MATCH (n:Note {project: $p}) RETURN count(n) AS notes, count(DISTINCT n.zk_id) AS ids",
        p=project, database_=db.conn.database)
    assert rows[0]["notes"] == rows[0]["ids"]
    return int(rows[0]["notes"])


def _restart_when(server: ServerUnderTest, ready: threading.Event) -> threading.Thread:
    """Restart the server once `ready` is set: every open connection dies with it."""
    assert server.local is not None
    local = server.local

    def restart() -> None:
        ready.wait(timeout=300)
        local.stop()
        time.sleep(2)  # refused connections for a while, then a cold server
        local.start(timeout_s=180)

    thread = threading.Thread(target=restart, daemon=True)
    thread.start()
    return thread


def test_a_benchmark_write_loop_and_a_drain_outlast_a_server_restart(
        own_neo4j: ServerUnderTest, embedder: SentenceTransformerEmbedder, project: str,
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="kg_brain")
    db = Database(own_neo4j.conn, timeout_s=5)
    bootstrap_schema(db)
    brain = make_brain(db, embedder)
    texts = note_texts(0, TURNS)
    corpus = Corpus(turns=[Turn(key=(1, i), speaker="dev", text=text, date="", session=1)
                           for i, (text, _) in enumerate(texts)])
    halfway = threading.Event()
    restarter = _restart_when(own_neo4j, halfway)
    watcher = threading.Thread(target=lambda: _wait_for(db, project, TURNS // 4, halfway),
                               daemon=True)
    watcher.start()
    by_key = add_corpus(brain, corpus, project)
    restarter.join(timeout=300)
    assert halfway.is_set() and not restarter.is_alive()  # the restart happened mid-run
    met = [r.getMessage() for r in caplog.records if "trying again" in r.getMessage()]
    assert any(m.startswith("bench ") for m in met), caplog.text  # the loop met the outage
    assert len(by_key) == TURNS
    assert _count(db, project) == len(set(by_key.values()))

    assert own_neo4j.local is not None
    caplog.clear()  # what follows is the drain's
    own_neo4j.local.stop()  # the drain starts while the server is down
    threading.Timer(3, own_neo4j.local.start, kwargs={"timeout_s": 180}).start()
    Maintenance(brain, project).evolution_drain()
    # the drain met the outage: waited out by `outlast`, or by the transaction retries when the
    # server was back before they ran out
    assert ("evolution drain: database unavailable" in caplog.text
            or "transient database fault" in caplog.text), caplog.text
    assert brain.evolution.process(project=project) == 0
    db.close()


def _wait_for(db: Database, project: str, notes: int, reached: threading.Event) -> None:
    while not reached.is_set():
        if _count(db, project) >= notes:
            reached.set()
        time.sleep(0.2)
