"""Round trips to the real server: a transaction's BEGIN travels with its first statement, so
add_memory costs three (its nearest notes, its one write statement, the commit) and still writes
its entities, links and session order."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from neo4j._async_compat.network._bolt_socket import BoltSocketBase

from kg_brain.base.vocab import LinkType
from kg_brain.root.app import Brain
from kg_brain.store import notes
from kg_brain.store.db import Database


class Flushes:
    """Counts what the driver sends the server in one go: each is answered before the next."""

    def __init__(self) -> None:
        self.count = 0


@pytest.fixture
def flushes(monkeypatch: pytest.MonkeyPatch) -> Iterator[Flushes]:
    counted = Flushes()
    send = BoltSocketBase.sendall

    def counting(sock: BoltSocketBase, data: Any) -> Any:
        counted.count += 1
        return send(sock, data)

    monkeypatch.setattr(BoltSocketBase, "sendall", counting)
    yield counted


def test_a_transaction_of_two_statements_is_three_round_trips(
        db: Database, project: str, flushes: Flushes) -> None:
    notes.project_share(db, project=project)  # a pooled connection, already open
    before = flushes.count
    db.read_tx(lambda tx: [notes.project_share(tx, project=project) for _ in range(2)])
    assert flushes.count - before == 3  # two statements (BEGIN with the first) and the commit


def test_add_memory_is_three_round_trips_and_writes_entities_links_and_order(
        brain: Brain, project: str, flushes: Flushes) -> None:
    first = brain.writer.add("The billing worker retries failed Stripe webhooks with "
                             "exponential backoff, capped at 5 attempts.", project,
                             session_id="s1")
    brain.deps.index_fetch.share(project)  # counted once a minute per process, not per write
    before = flushes.count
    added = brain.writer.add("The billing worker retries failed Stripe webhooks with "
                             "exponential backoff, now capped at 8 attempts.", project,
                             session_id="s1")
    assert flushes.count - before == 3
    note = added.note
    links = {(x.zk_id, x.type) for x in note.links if x.direction == "out"}
    assert (first.note.zk_id, LinkType.FOLLOWS) in links  # the session's order
    assert any(zk == first.note.zk_id and t != LinkType.FOLLOWS for zk, t in links)
    assert {"billing worker", "stripe"} <= {e.key for e in note.entities}, note.entities
