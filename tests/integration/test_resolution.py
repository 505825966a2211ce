"""record_resolution is one transaction: the fix note, its FIXES link to the failure and the
failure's promotion commit together or not at all."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import pytest

from kg_brain.enrichment.embed import SentenceTransformerEmbedder
from kg_brain.store.db import Database, Tx
from tests.support.brains import make_brain

T = TypeVar("T")
FAILURE = "pytest fails with 'Driver closed' when a scheduler job outlives the server's driver."
FIX = "Stop the scheduler and wait for its running job before closing the Neo4j driver."


class CountingDatabase(Database):
    """The real database, counting write transactions and able to fail, just before it commits,
    the first one that changes a given note (`crash_on`)."""

    def __init__(self, db: Database) -> None:
        super().__init__(db.conn)
        self.writes = 0
        self.crash_on: str | None = None
        self.on_changes = self._maybe_crash

    def write_tx(self, fn: Callable[[Tx], T], timeout_s: float | None = None) -> T:
        self.writes += 1
        return super().write_tx(fn, timeout_s)

    def _maybe_crash(self, tx: Tx, changed: list[str]) -> None:
        if self.crash_on in changed:
            raise RuntimeError("process died before commit")


def _fixes(db: Database, failure: str) -> list[dict[str, Any]]:
    rows, _, _ = db.driver.execute_query(
        "MATCH (f:Note)-[:FIXES]->(:Note {zk_id: $zk}) RETURN f.zk_id AS zk_id", zk=failure,
        database_=db.conn.database)
    return [dict(r) for r in rows]


@pytest.fixture
def counting(db: Database) -> Any:
    database = CountingDatabase(db)
    yield database
    database.close()


def test_the_fix_its_link_and_the_promotion_are_one_transaction(
        counting: CountingDatabase, embedder: SentenceTransformerEmbedder, project: str) -> None:
    brain = make_brain(counting, embedder)
    failure = brain.mistakes.record_failure(FAILURE, project)
    counting.writes = 0
    done = brain.mistakes.record_resolution(failure.zk_id, FIX)
    assert counting.writes == 1
    assert done.failure_memory_type == "permanent"
    assert _fixes(counting, failure.zk_id) == [{"zk_id": done.fix_zk_id}]
    assert brain.reader.get([failure.zk_id])[0].memory_type == "permanent"


def test_a_crash_before_commit_leaves_no_unlinked_fix(
        counting: CountingDatabase, embedder: SentenceTransformerEmbedder, project: str) -> None:
    brain = make_brain(counting, embedder)
    failure = brain.mistakes.record_failure(FAILURE, project)
    counting.crash_on = failure.zk_id  # dies as the failure is linked or promoted
    with pytest.raises(RuntimeError, match="before commit"):
        brain.mistakes.record_resolution(failure.zk_id, FIX)
    counting.crash_on = None
    assert _fixes(counting, failure.zk_id) == []
    assert brain.reader.get([failure.zk_id])[0].memory_type == "fleeting"
    rows, _, _ = counting.driver.execute_query(
        "MATCH (n:Note {project: $p, note_kind: 'fix'}) RETURN count(n) AS fixes", p=project,
        database_=counting.conn.database)
    assert rows[0]["fixes"] == 0
    done = brain.mistakes.record_resolution(failure.zk_id, FIX)  # the retry does it all
    assert _fixes(counting, failure.zk_id) == [{"zk_id": done.fix_zk_id}]
