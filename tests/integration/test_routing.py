"""Routing-safe access: through a `neo4j://` URI reads run as read transactions (which may go to
followers) and writes as write transactions (to the leader), chained by bookmarks so a client
reads its own writes."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest

from kg_brain.app import utc_now
from kg_brain.db import Database
from kg_brain.embed import SentenceTransformerEmbedder
from kg_brain.llm import build_enricher
from kg_brain.memory import Memory
from kg_brain.search import Search
from kg_brain.settings import load_settings
from tests.conftest import ServerUnderTest


@pytest.fixture
def routed_db(neo4j_server: ServerUnderTest) -> Iterator[Database]:
    conn = replace(neo4j_server.conn, uri="neo4j://" + neo4j_server.conn.uri.split("://", 1)[1])
    database = Database(conn)
    yield database
    database.close()


def test_reads_run_in_read_transactions_that_refuse_writes(routed_db: Database,
                                                           project: str) -> None:
    """A write statement sent through read() is refused: read() really asks for read mode,
    which a cluster may route to a follower."""
    with pytest.raises(Exception, match="(?i)read"):
        routed_db.read("jobs/enqueue_jobs", now=utc_now(), rows=[
            {"key": f"probe:{project}", "kind": "probe", "zk_id": "ZK-00000000",
             "project": project}])


def test_a_client_reads_its_own_writes_through_the_routing_driver(
    routed_db: Database, embedder: SentenceTransformerEmbedder, project: str
) -> None:
    settings = load_settings()
    memory = Memory(settings, routed_db, embedder, build_enricher(settings), utc_now)
    search = Search(settings, routed_db, embedder, utc_now)
    before = set(routed_db.bookmarks.get_bookmarks())
    added = memory.add("Causal chaining: every session of this process carries the bookmark of "
                       "the last write, so a replica serves a read only once it has caught up.",
                       project)
    after_write = set(routed_db.bookmarks.get_bookmarks())
    assert after_write and after_write != before
    hits = search.search_memory("how does a replica know it has caught up?", project, top_k=3)
    assert hits[0].zk_id == added.note.zk_id
