"""Decay, archival, restore, decay report and inbox on the real Neo4j, time moved by the clock."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from kg_brain.base.errors import InvalidInput, NotFound
from kg_brain.base.vocab import LinkType
from kg_brain.domain.lifecycle import decay_score
from kg_brain.enrichment.embed import SentenceTransformerEmbedder
from kg_brain.root.app import Brain
from kg_brain.store import lifecycle as statements
from kg_brain.store.db import Database
from kg_brain.store.notes import new_zk_id
from tests.support.brains import make_brain

T0 = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)


def at(moment: datetime) -> Callable[[], datetime]:
    return lambda: moment


@pytest.fixture
def make(db: Database, embedder: SentenceTransformerEmbedder) -> Callable[[datetime], Brain]:
    """make(when) builds a Brain whose clock is stopped at `when`."""
    return lambda when: make_brain(db, embedder, clock=at(when))


def _note(project: str, title: str, **extra: Any) -> dict[str, Any]:
    return {"project": project, "title": title, "content": f"{title}. Details about {title}.",
            "context": "test note", "keywords": title.lower().split(), **extra}


def _ids(brain: Brain, project: str, *titles: str, **extra: Any) -> list[str]:
    return brain.importer.add_many([_note(project, t, **extra) for t in titles])


def _snapshot(db: Database, project: str) -> list[dict[str, Any]]:
    page = statements.decay_scores(db, project=project, now=T0, stale_days=0, max_access=0,
                                   threshold=0.0, half_life_days=1.0, saturation=1,
                                   w_recency=1.0, w_importance=0.0, due_only=False, limit=1000)
    return sorted(page["rows"], key=lambda r: r["zk_id"])


def test_stale_notes_are_archived_but_pinned_used_linked_and_fleeting_are_not(
        make: Callable[[datetime], Brain], db: Database, project: str) -> None:
    old = make(T0)
    stale = _ids(old, project, "Stale gradle cache workaround", "Stale nginx proxy header")
    pinned = _ids(old, project, "Pinned release checklist", pinned=True)
    fleeting = _ids(old, project, "Fleeting idea about caching", memory_type="fleeting")
    built_on = _ids(old, project, "Core retry policy for the ingest worker")
    linkers = _ids(old, project, "Ingest worker backoff", "Ingest worker jitter", pinned=True)
    db.write_tx(lambda tx: [old.writer.link(tx, src, built_on[0], LinkType.EXTENDS,
                                            "builds on", 0.8) for src in linkers])
    used = _ids(old, project, "Kubernetes liveness probe timeout tuning")
    searcher = make(T0 + timedelta(days=55))  # another process: its stamps written by now
    searcher.search.search_memory("Kubernetes liveness probe timeout tuning", project, top_k=1)
    searcher.deps.access.flush()

    now = T0 + timedelta(days=60)
    lifecycle = make(now).lifecycle
    before = _snapshot(db, project)
    report = lifecycle.archive_stale(dry_run=True, project=project)
    assert _snapshot(db, project) == before, "a dry run changed the graph"
    assert sorted(c.zk_id for c in report.candidates) == sorted(stale)
    assert report.archived == 0
    assert all(c.days_idle == 60 and c.access_count == 0 and c.decay_score < 0.3
               and c.reason.startswith("stale: idle 60 days") for c in report.candidates)

    applied = lifecycle.archive_stale(dry_run=False, project=project)
    assert applied.archived == 2 and sorted(c.zk_id for c in applied.candidates) == sorted(stale)
    states = {n.zk_id: n.memory_type
              for n in old.reader.get(stale + pinned + fleeting + built_on + used)}
    assert [states[z] for z in stale] == ["archived", "archived"]
    assert {states[z] for z in pinned + built_on + used} == {"permanent"}
    assert states[fleeting[0]] == "fleeting"
    row = statements.cluster_members(db, zk_ids=stale, project=project)
    assert row == [], "archived notes are no longer permanent members"
    assert lifecycle.archive_stale(dry_run=False, project=project).archived == 0


def test_a_note_written_next_in_its_session_is_no_inbound_link_for_decay(
        make: Callable[[datetime], Brain], project: str) -> None:
    """FOLLOWS says when a note was written, not that another builds on it: an unused note
    archives at 45 idle days whether or not its session wrote another after it (one inbound
    link would put that at 60)."""
    writer = make(T0).writer
    first = writer.add("The nightly export job writes parquet files to the archive bucket.",
                       project, session_id="window-1").note
    second = writer.add("Mobile release builds are signed on the CI runner, never on laptops.",
                        project, session_id="window-1").note
    assert [(x.type, x.zk_id) for x in second.links] == [(LinkType.FOLLOWS, first.zk_id)]
    lifecycle = make(T0 + timedelta(days=50)).lifecycle
    report = lifecycle.decay_report(limit=10, project=project)
    assert {e.zk_id: e.inbound_links for e in report} == {first.zk_id: 0, second.zk_id: 0}
    assert report[0].archive_due == (T0 + timedelta(days=45, seconds=1)).isoformat()
    archived = lifecycle.archive_stale(dry_run=False, project=project).archived_ids
    assert sorted(archived) == sorted([first.zk_id, second.zk_id])


def test_the_limit_bounds_the_listing_but_every_stale_note_is_counted_and_archived(
        make: Callable[[datetime], Brain], project: str) -> None:
    stale = _ids(make(T0), project, *(f"Stale runbook step {i}" for i in range(7)))
    lifecycle = make(T0 + timedelta(days=60)).lifecycle
    dry = lifecycle.archive_stale(dry_run=True, project=project, limit=3)
    assert dry.total == 7 and len(dry.candidates) == 3 and dry.archived_ids == []
    assert set(c.zk_id for c in dry.candidates) < set(stale)
    applied = lifecycle.archive_stale(dry_run=False, project=project, limit=2)
    assert applied.total == applied.archived == 7 and len(applied.candidates) == 2
    assert sorted(applied.archived_ids) == sorted(stale)
    assert lifecycle.archive_stale(dry_run=True, project=project).total == 0
    with pytest.raises(InvalidInput, match="limit"):
        lifecycle.archive_stale(dry_run=True, project=project, limit=0)


def test_restore_brings_an_archived_note_back_into_search(
        make: Callable[[datetime], Brain], project: str) -> None:
    title = "Postgres advisory locks serialise the migration runner"
    [zk_id] = _ids(make(T0), project, title)
    now = T0 + timedelta(days=90)
    lifecycle = make(now).lifecycle
    assert lifecycle.archive_stale(dry_run=False, project=project).archived == 1
    search = make(now).search
    assert zk_id not in [h.zk_id for h in search.search_memory(title, project)]

    note = lifecycle.restore(zk_id)
    assert note.memory_type == "permanent" and note.updated == now.isoformat()
    assert zk_id in [h.zk_id for h in search.search_memory(title, project)]
    assert lifecycle.archive_stale(dry_run=True, project=project).candidates == []
    with pytest.raises(InvalidInput):
        lifecycle.restore(zk_id)
    with pytest.raises(NotFound):
        lifecycle.restore(new_zk_id())


def test_decay_report_lists_soonest_archival_first_with_due_dates(
        make: Callable[[datetime], Brain], project: str) -> None:
    older = _ids(make(T0), project, "Older terraform state lock note")
    newer = _ids(make(T0 + timedelta(days=10)), project, "Newer helm chart values note")
    pinned = _ids(make(T0), project, "Pinned on-call runbook", pinned=True)
    report = make(T0 + timedelta(days=20)).lifecycle.decay_report(limit=10, project=project)
    assert [e.zk_id for e in report] == older + newer + pinned
    assert report[0].archive_due == (T0 + timedelta(days=45, seconds=1)).isoformat()
    assert report[2].archive_due is None and report[2].pinned
    for entry in report:
        expected = decay_score(entry.days_idle, entry.access_count, entry.inbound_links)
        assert entry.decay_score == pytest.approx(expected, abs=1e-4)


def test_inbox_lists_fleeting_notes_oldest_first(make: Callable[[datetime], Brain],
                                                 project: str) -> None:
    second = _ids(make(T0 + timedelta(hours=2)), project, "Second capture",
                  memory_type="fleeting")
    first = _ids(make(T0), project, "First capture", memory_type="fleeting")
    _ids(make(T0), project, "A permanent note")
    inbox = make(T0 + timedelta(days=1)).lifecycle.inbox(project)
    assert [n.zk_id for n in inbox] == first + second



OVERFETCH = [
    "Neo4j vector index queries cannot filter by project, so over-fetch candidates and filter "
    "afterwards.",
    "Neo4j vector index queries can't filter by project, so over-fetch the candidates and filter "
    "them afterwards.",
    "The Neo4j vector index query cannot filter by project; over-fetch candidates, then filter "
    "afterwards.",
]
PYTEST_X = ["Run pytest with -x to stop at the first failing test.",
            "Use pytest -x to stop the run at the first failing test."]


def _texts(brain: Brain, project: str, texts: list[str]) -> list[str]:
    return brain.importer.add_many([{"project": project, "title": t.split(",")[0], "content": t,
                             "context": "", "keywords": ["test"]} for t in texts])


def test_consolidation_apply_merges_only_the_selected_cluster(
        make: Callable[[datetime], Brain], db: Database, project: str) -> None:
    old = make(T0)
    dupes = _texts(old, project, OVERFETCH)
    others = _texts(old, project, PYTEST_X)
    [outside] = _texts(old, project, ["Docker compose --wait holds until health checks pass."])
    db.write_tx(lambda tx: old.writer.link(tx, outside, dupes[0], LinkType.RELATES_TO, "uses",
                                           0.5))
    brain = make(T0 + timedelta(days=1))

    report = brain.consolidation.run(project, dry_run=True)
    assert [sorted(c.zk_ids) for c in report.clusters] == [sorted(dupes), sorted(others)]
    assert brain.consolidation.run(project, dry_run=True) == report, "cluster ids are not stable"
    with pytest.raises(InvalidInput):
        brain.consolidation.run(project, dry_run=False)  # no selection, auto_consolidate off
    with pytest.raises(InvalidInput):
        brain.consolidation.run(project, dry_run=False, selected=["CL-000000000000"])

    chosen = report.clusters[0].cluster_id
    applied = brain.consolidation.run(project, dry_run=False, selected=[chosen])
    [merged] = applied.merged
    assert merged.cluster_id == chosen and merged.archived == sorted(dupes)
    note = brain.reader.get([merged.new_zk_id])[0]
    assert note.memory_type == "permanent" and "over-fetch" in note.content
    assert {(link.zk_id, link.type, link.direction) for link in note.links} == (
        {(outside, "RELATES_TO", "in")} | {(z, "SUPERSEDES", "out") for z in dupes})
    states = {n.zk_id: n.memory_type for n in brain.reader.get(dupes + others)}
    assert {states[z] for z in dupes} == {"archived"}
    assert {states[z] for z in others} == {"permanent"}
    left = brain.consolidation.run(project, dry_run=True)
    assert [c.cluster_id for c in left.clusters] == [report.clusters[1].cluster_id]
