"""Routing-safe access: through a `neo4j://` URI reads run as read transactions (which may go to
followers) and writes as write transactions (to the leader), chained by bookmarks so a client
reads its own writes."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest

from kg_brain.base.clock import utc_now
from kg_brain.enrichment.embed import SentenceTransformerEmbedder
from kg_brain.store import jobs
from kg_brain.store.db import Database
from tests.support.brains import make_brain
from tests.support.neo4j import ServerUnderTest


@pytest.fixture
def routed_db(neo4j_server: ServerUnderTest) -> Iterator[Database]:
    conn = replace(neo4j_server.conn, uri="neo4j://" + neo4j_server.conn.uri.split("://", 1)[1])
    database = Database(conn)
    yield database
    database.close()


def test_reads_run_in_read_transactions_that_refuse_writes(routed_db: Database,
                                                           project: str) -> None:
    """A write statement sent in a read transaction is refused by the server: read_tx really
    asks for read mode, which a cluster may route to a follower."""
    params = {"now": utc_now(), "rows": [{"key": f"probe:{project}", "kind": "probe",
                                          "zk_id": "ZK-00000000", "project": project}]}
    with pytest.raises(Exception, match="(?i)read"):
        routed_db.read_tx(lambda tx: tx.run("jobs/enqueue_jobs", "read", params))


def test_the_store_refuses_a_write_statement_in_a_read_transaction(routed_db: Database) -> None:
    with pytest.raises(RuntimeError, match="cannot run in a read transaction"):
        routed_db.read_tx(lambda tx: jobs.enqueue_jobs(tx, now=utc_now(), rows=[]))


def test_a_client_reads_its_own_writes_through_the_routing_driver(
    routed_db: Database, embedder: SentenceTransformerEmbedder, project: str
) -> None:
    brain = make_brain(routed_db, embedder)
    before = set(routed_db.bookmarks.get_bookmarks())
    added = brain.writer.add("Causal chaining: every session of this process carries the "
                             "bookmark of the last write, so a replica serves a read only once "
                             "it has caught up.", project)
    after_write = set(routed_db.bookmarks.get_bookmarks())
    assert after_write and after_write != before
    hits = brain.search.search_memory("how does a replica know it has caught up?", project, top_k=3)
    assert hits[0].zk_id == added.note.zk_id
