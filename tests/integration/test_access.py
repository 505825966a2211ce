"""Access stamps: the searches read, the stamps of their hits are written after, in batches."""

from __future__ import annotations

import logging
import time
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest

from kg_brain.base.errors import StoreUnavailable
from kg_brain.domain.access import AccessStamps
from kg_brain.domain.lifecycle import Lifecycle
from kg_brain.domain.memory.reading import NoteReader
from kg_brain.domain.search import Search
from kg_brain.enrichment.embed import SentenceTransformerEmbedder
from kg_brain.root.app import Brain
from kg_brain.store.db import Database, Mode
from tests.support.brains import make_brain

pytestmark = pytest.mark.usefixtures("own_drains")  # tests/integration/conftest.py

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
LATER = datetime(2026, 3, 2, 8, 30, tzinfo=UTC)
TEXTS = ["The connection pool holds twenty sessions; raise it when workers wait.",
         "Deploys go out through the blue-green switch on Tuesdays.",
         "The pool exhausted its connections under the nightly batch load."]


@pytest.fixture
def brain(db: Database, embedder: SentenceTransformerEmbedder) -> Brain:
    return make_brain(db, embedder, clock=lambda: NOW)


def _held(brain: Brain, stamps: AccessStamps) -> Search:
    """A search whose stamps wait until flushed (an hour's interval), so a test sees both sides."""
    return Search(replace(brain.deps, access=stamps))


def _seed(brain: Brain, project: str) -> list[str]:
    return brain.importer.add_many([{"content": t, "project": project, "title": t[:30]}
                                    for t in TEXTS])


def _access(brain: Brain, ids: list[str]) -> dict[str, tuple[int, str | None]]:
    return {n.zk_id: (n.access_count, n.last_accessed) for n in brain.reader.get(ids)}


def test_a_searchs_hits_are_stamped_once_after_a_flush(brain: Brain, project: str) -> None:
    ids = _seed(brain, project)
    stamps = AccessStamps(brain.db, interval_s=3600)
    search = _held(brain, stamps)
    hits = [h.zk_id for h in search.search_memory("connection pool", project, top_k=2)]
    assert hits
    assert set(_access(brain, ids).values()) == {(0, None)}  # nothing written yet
    stamps.flush()
    stamps.flush()  # nothing waits: nothing counted twice
    after = _access(brain, ids)
    assert {z for z, (count, _) in after.items() if count} == set(hits)
    assert all(after[z] == (1, NOW.isoformat()) for z in hits)
    deep = [h.zk_id for h in search.deep_search("connection pool", project, top_k=2)]
    search.clock = lambda: LATER
    search.search_memory("connection pool", project, top_k=2)
    stamps.flush()  # one batch: a note found twice gains two, its last access the latest
    again = _access(brain, ids)
    assert again[hits[0]] == (1 + deep.count(hits[0]) + 1, LATER.isoformat())


def test_full_notes_and_the_decay_report_show_the_stamps_still_waiting(
        brain: Brain, project: str) -> None:
    """What waits in this process's stamps is written before a view shows access counts."""
    _seed(brain, project)
    stamps = AccessStamps(brain.db, interval_s=3600)
    deps = replace(brain.deps, access=stamps)
    search, reader = Search(deps), NoteReader(deps)
    hits = [h.zk_id for h in search.search_memory("connection pool", project, top_k=1)]
    assert [(n.access_count, n.last_accessed) for n in reader.get(hits)] == [
        (1, NOW.isoformat())]
    search.search_memory("connection pool", project, top_k=1)
    report = Lifecycle(deps, reader).decay_report(limit=10, project=project)
    assert {e.zk_id: e.access_count for e in report}[hits[0]] == 2


def test_stamp_false_stamps_nothing(brain: Brain, project: str) -> None:
    ids = _seed(brain, project)
    stamps = AccessStamps(brain.db, interval_s=3600)
    search = _held(brain, stamps)
    assert search.search_memory("connection pool", project, top_k=3, stamp=False)
    assert search.deep_search("connection pool", project, top_k=3, stamp=False)
    stamps.flush()
    assert set(_access(brain, ids).values()) == {(0, None)}


def test_the_writer_stamps_within_its_interval_and_close_writes_what_waits(
        brain: Brain, project: str) -> None:
    ids = _seed(brain, project)
    brain.search.search_memory("connection pool", project, top_k=1)
    time.sleep(brain.deps.access.interval_s * 4)
    assert sorted(c for c, _ in _access(brain, ids).values()) == [0, 0, 1]
    stamps = AccessStamps(brain.db, interval_s=3600)
    _held(brain, stamps).search_memory("connection pool", project, top_k=1)
    stamps.close()
    assert sorted(c for c, _ in _access(brain, ids).values()) == [0, 0, 2]


def test_the_searches_run_in_read_transactions(brain: Brain, db: Database, project: str) -> None:
    _seed(brain, project)
    view = db.bound()
    modes: list[tuple[str, Mode]] = []

    def recorded(name: str, mode: Mode, params: dict[str, Any], *rest: Any) -> Any:
        modes.append((name, mode))
        return Database.run(view, name, mode, params, *rest)

    view.run = recorded  # type: ignore[method-assign]
    search = Search(replace(brain.deps, db=view))
    search.index_fetch.share(project)
    assert search.search_memory("connection pool", project, top_k=2)
    assert search.deep_search("connection pool", project, top_k=2)
    assert modes == [("search/search_memory", "read"), ("search/deep_search", "read")]
    with pytest.raises(Exception, match="(?i)read access mode"):  # the server refuses a SET
        db.read_tx(lambda tx: tx._tx.run("MATCH (n:Note {project: $project}) "
                                         "SET n.access_count = 7", project=project).consume())


def test_a_failed_stamp_is_logged_tried_once_more_and_never_raised(
        db: Database, caplog: pytest.LogCaptureFixture) -> None:
    closed = Database(db.conn)
    closed.close()
    with pytest.raises(StoreUnavailable):
        closed.verify()
    stamps = AccessStamps(closed, interval_s=3600)
    stamps.add(["ZK-00000000"], NOW)
    with caplog.at_level(logging.WARNING, logger="kg_brain.domain.access"):
        stamps.flush()
    assert [r.levelno for r in caplog.records if r.name == "kg_brain.domain.access"] == [
        logging.WARNING, logging.ERROR]
