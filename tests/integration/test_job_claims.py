"""Claiming queued jobs on the real server: oldest first, claimed ones skipped until their
claim runs out, and a claim reading its batch from the index, not the whole queue (a long
queue, such as the sentences jobs of a large import, is drained batch after batch)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from kg_brain.base.clock import utc_now
from kg_brain.base.cypher import query
from kg_brain.store import jobs
from kg_brain.store.db import Database

FIRST = datetime(2026, 1, 1, tzinfo=UTC)  # when the test's first job was queued


@pytest.fixture
def kind(db: Database) -> Iterator[str]:
    """A job kind of this test's own: no other test's or server's jobs are claimed."""
    name = f"test-claim-{uuid.uuid4().hex[:8]}"
    yield name
    db.driver.execute_query("MATCH (j:Job {kind: $kind}) DETACH DELETE j", kind=name,
                            database_=db.conn.database)


def _queue(db: Database, kind: str, project: str, count: int, start: int = 0) -> list[str]:
    """`count` jobs of `kind` in `project`, the i-th queued i seconds after the test's first
    (`start`: the first one's i), all before now."""
    keys = [f"{kind}:{project}:{i}" for i in range(start, start + count)]
    for i, key in enumerate(keys, start):
        jobs.enqueue_jobs(db, rows=[{"key": key, "kind": kind, "zk_id": key, "project": project}],
                          now=FIRST + timedelta(seconds=i))
    return keys


def _claim(db: Database, kind: str, project: str | None, limit: int) -> list[str]:
    now = utc_now()
    return [j["key"] for j in jobs.claim(db, kind=kind, project=project, now=now,
                                         until=now + timedelta(minutes=5), limit=limit,
                                         worker="test")]


def test_claims_take_the_oldest_unclaimed_jobs_first(db: Database, kind: str,
                                                     project: str) -> None:
    mine = _queue(db, kind, project, 5)
    other = _queue(db, kind, f"{project}-other", 2, start=5)
    assert _claim(db, kind, project, 2) == mine[:2]
    assert _claim(db, kind, project, 2) == mine[2:4]  # the claimed ones are skipped
    assert _claim(db, kind, None, 2) == [mine[4], other[0]]
    assert _claim(db, kind, None, 5) == [other[1]]


def _seek_rows(plan: dict[str, Any]) -> int:
    own = plan.get("rows", 0) if "IndexSeek" in plan.get("operatorType", "") else 0
    return int(own) + sum(_seek_rows(child) for child in plan.get("children", []))


@pytest.mark.parametrize("scoped", [False, True])
def test_a_claim_reads_its_batch_not_the_whole_queue(db: Database, kind: str, project: str,
                                                     scoped: bool) -> None:
    _queue(db, kind, project, 200)
    now = utc_now()
    name, params = "jobs/claim_jobs", {"kind": kind, "now": now,
                                       "until": now + timedelta(minutes=5), "limit": 5,
                                       "worker": "test"}
    if scoped:
        name, params = "jobs/claim_project_jobs", {**params, "project": project}
    with db.driver.session(database=db.conn.database) as session:
        summary = session.run("PROFILE " + query(name, db.line), params).consume()
    assert summary.profile is not None
    assert _seek_rows(summary.profile) <= 10  # 200 queued: the index hands over the oldest
