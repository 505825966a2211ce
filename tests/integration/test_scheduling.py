"""Leases and leased jobs: several scheduler instances on one database run a job once per period."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import pytest

from kg_brain.enrichment.embed import SentenceTransformerEmbedder
from kg_brain.root.app import Brain
from kg_brain.store.db import Database
from kg_brain.surfaces.leasing import LeasedJob, Leases
from kg_brain.surfaces.maintenance import build_jobs, build_scheduler, catch_up
from tests.support.brains import make_brain, make_settings

pytestmark = pytest.mark.routing  # also run through neo4j:// by `make test-routing`

SUNDAY = datetime(2024, 3, 3, 3, 0, 5, tzinfo=UTC)  # just after the default weekly archive cron


class Clock:
    """One movable clock shared by every instance, like synchronised wall clocks."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock(SUNDAY - timedelta(days=60))


@pytest.fixture
def instances(db: Database, embedder: SentenceTransformerEmbedder,
              clock: Clock) -> Iterator[list[Brain]]:
    """Three independent 'processes': each its own driver, all on one database."""
    brains = [make_brain(Database(db.conn), embedder, clock=clock) for _ in range(3)]
    yield brains
    for brain in brains:
        brain.close()


def _archive_jobs(brains: list[Brain], project: str) -> list[LeasedJob]:
    return [next(j for j in build_jobs(b, holder=f"instance-{i}", project=project)
                 if j.name.startswith("archive")) for i, b in enumerate(brains)]


def _fire(jobs: list[LeasedJob]) -> list[bool]:
    with ThreadPoolExecutor(len(jobs)) as pool:
        return list(pool.map(lambda job: job(), jobs))


def _add_stale(brain: Brain, project: str, title: str) -> str:
    return brain.importer.add_many([{"project": project, "title": title, "content": title,
                                     "context": "", "keywords": ["stale"]}])[0]


def test_three_instances_run_the_archive_job_once_per_period(
        instances: list[Brain], clock: Clock, project: str) -> None:
    first = _add_stale(instances[0], project, "Old note about a retired build agent")
    jobs = _archive_jobs(instances, project)
    clock.now = SUNDAY
    assert sorted(_fire(jobs)) == [False, False, True]
    assert instances[0].reader.get([first])[0].memory_type == "archived"

    clock.now = SUNDAY + timedelta(hours=5)  # same period: a late or restarted instance skips
    assert _fire(jobs) == [False, False, False]

    clock.now = SUNDAY - timedelta(days=53)
    second = _add_stale(instances[1], project, "Old note about a decommissioned cache node")
    clock.now = SUNDAY + timedelta(days=7)  # next period
    assert sorted(_fire(jobs)) == [False, False, True]
    assert instances[2].reader.get([second])[0].memory_type == "archived"


def test_a_crashed_holders_lease_expires(db: Database, clock: Clock, project: str) -> None:
    name = f"test-lease:{project}"
    crashed, other = Leases(db, clock, "crashed"), Leases(db, clock, "other")
    assert crashed.acquire(name, timedelta(minutes=30))
    clock.now += timedelta(minutes=29)
    assert not other.acquire(name, timedelta(minutes=30))
    clock.now += timedelta(minutes=2)
    assert other.acquire(name, timedelta(minutes=30))
    assert not crashed.acquire(name, timedelta(minutes=30))


def test_a_failed_run_gives_the_lease_back(db: Database, clock: Clock, project: str) -> None:
    trigger = build_scheduler(Brain(make_settings(), db=db, clock=clock), blocking=False,
                              project=project).get_job(f"archive:{project}").trigger

    def boom() -> None:
        raise RuntimeError("disk full")

    failing = LeasedJob(f"flaky:{project}", trigger, lambda: Leases(db, clock, "a"), boom)
    working = LeasedJob(f"flaky:{project}", trigger, lambda: Leases(db, clock, "b"), lambda: None)
    with pytest.raises(RuntimeError):
        failing()
    assert working()


WEEKLY = ("archive", "consolidation-report")  # the daily forget-purge catches up the same way


def _catch_up_all(brains: list[Brain], project: str) -> list[list[str]]:
    """Every 'process' checks for missed runs at once, as each does at start."""
    jobs = [[j for j in build_jobs(b, holder=f"instance-{i}", project=project)
             if j.catches_up and j.name.split(":")[0] in WEEKLY] for i, b in enumerate(brains)]
    with ThreadPoolExecutor(len(jobs)) as pool:
        return list(pool.map(catch_up, jobs))


def test_missed_runs_catch_up_once_across_processes(
        instances: list[Brain], clock: Clock, project: str) -> None:
    pair = instances[:2]
    assert _catch_up_all(pair, project) == [[], []]  # first start: the clock starts, no run
    stale = _add_stale(pair[0], project, "Old note about a laptop that sleeps on Sundays")
    clock.now = SUNDAY + timedelta(days=3)  # asleep through Sunday 03:00: the archive was missed
    weekly = [f"archive:{project}", f"consolidation-report:{project}"]
    assert sorted(sum(_catch_up_all(pair, project), [])) == weekly  # each ran once, somewhere
    assert pair[1].reader.get([stale])[0].memory_type == "archived"

    clock.now += timedelta(hours=1)  # nothing missed since
    assert _catch_up_all(pair, project) == [[], []]
    clock.now = SUNDAY + timedelta(days=6, hours=23)  # before the next fire: nothing due yet
    assert _catch_up_all(pair, project) == [[], []]
    clock.now = SUNDAY + timedelta(days=30)  # a long gap: several fires missed, one run
    assert sorted(sum(_catch_up_all(pair, project), [])) == weekly
    assert _catch_up_all(pair, project) == [[], []]
