"""The maintenance cadence: weekly archival, a consolidation report, the evolution queue drain,
the Obsidian mirror's drain and the daily purge of forgotten notes whose undo window closed.

Where the jobs run: the shared HTTP service (`kg-brain serve --http`, the warm service stdio
clients forward to) and `kg-brain scheduler` run them for the whole database; a stdio server
serving its window in-process runs them only for the projects that window uses
(SessionScheduler). Several processes may run the same jobs, so every job first
takes a lease in Neo4j (a :Lease node with holder and expiry). The winner holds it while running
and, when done, keeps it until just before the job's next fire time: the other processes, which
fire at the same moment, find it taken and skip, so each job runs once per period. A holder that
crashes mid-run stops renewing; its lease expires after the running TTL and the next fire runs.
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import socket
import sys
import threading
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.schedulers.base import BaseScheduler
from apscheduler.schedulers.blocking import BlockingScheduler
from apscheduler.triggers.base import BaseTrigger
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext

from kg_brain.app import Brain
from kg_brain.clock import Clock
from kg_brain.db import Database
from kg_brain.errors import SetupError
from kg_brain.memory.evolution import CLAIM_FOR
from kg_brain.settings import Settings, load_settings
from kg_brain.store import leases

log = logging.getLogger(__name__)
RUNNING_TTL = timedelta(minutes=30)
EVOLUTION_BATCH = 50
MIRROR_BATCH = 50
_WEEKDAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
_WEEKDAY_NUMBER = re.compile(r"(?<![/\d])\d+")


def cron_trigger(expression: str) -> CronTrigger:
    """A standard 5-field crontab in UTC. APScheduler 3 counts weekdays from Monday = 0, cron
    from Sunday = 0 (and 7), so numeric weekdays are translated to names first."""
    fields = expression.split()
    if len(fields) != 5:
        raise SetupError(f"invalid cron expression {expression!r}: expected 5 fields")
    minute, hour, day, month, weekday = fields
    weekday = _WEEKDAY_NUMBER.sub(lambda m: _WEEKDAYS[int(m.group()) % 7], weekday)
    try:
        return CronTrigger(minute=minute, hour=hour, day=day, month=month,
                           day_of_week=weekday, timezone=UTC)
    except ValueError as exc:
        raise SetupError(f"invalid cron expression {expression!r}: {exc}") from None


def default_holder() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


class Leases:
    """Named leases in Neo4j; the expiry comes from the injected clock, never the server's."""

    def __init__(self, db: Database, clock: Clock, holder: str) -> None:
        self.db = db
        self.clock = clock
        self.holder = holder

    def acquire(self, name: str, ttl: timedelta) -> bool:
        now = self.clock()
        state = leases.acquire_lease(self.db, lease=name, holder=self.holder, now=now,
                                     until=now + ttl)
        return bool(state["acquired"])

    def hold_until(self, name: str, until: datetime) -> bool:
        return leases.release_lease(self.db, lease=name, holder=self.holder,
                                    until=until) is not None

    def release(self, name: str) -> bool:
        return self.hold_until(name, self.clock())


class LeasedJob:
    """A job body behind a lease: runs only in the process that wins this period's lease."""

    def __init__(self, name: str, trigger: BaseTrigger, leases: Callable[[], Leases],
                 body: Callable[[], object], running_ttl: timedelta = RUNNING_TTL) -> None:
        self.name = name
        self.trigger = trigger
        self.running_ttl = running_ttl
        self.leases = leases  # built at fire time: the server starts without touching Neo4j
        self.body = body

    def __call__(self) -> bool:
        """Returns whether this process ran the job (False: another holder has the period)."""
        leases = self.leases()
        if not leases.acquire(self.name, self.running_ttl):
            log.debug("job %s: lease held elsewhere, skipped", self.name)
            return False
        try:
            self.body()
        except BaseException:
            leases.release(self.name)  # the next fire, in any process, retries
            raise
        leases.hold_until(self.name, self._period_end(leases.clock()))
        return True

    def _period_end(self, now: datetime) -> datetime:
        """Just before the next fire time, so the next period's fire finds the lease free."""
        nxt = self.trigger.get_next_fire_time(None, now + timedelta(seconds=1))
        if nxt is None:
            return now
        grace = min(timedelta(seconds=60), (nxt - now) / 10)
        return max(now, nxt - grace)


class Maintenance:
    """The job bodies; `project` scopes archival and consolidation (tests, one tenant)."""

    def __init__(self, brain: Brain, project: str | None = None) -> None:
        self.brain = brain
        self.project = project

    def archive(self) -> None:
        report = self.brain.lifecycle.archive_stale(dry_run=False, project=self.project)
        log.info("weekly archival: %d notes archived", report.archived)

    def consolidation_report(self) -> None:
        """Dry run per project, logged; merges only when AUTO_CONSOLIDATE is on."""
        consolidation = self.brain.consolidation
        for name in [self.project] if self.project else consolidation.projects():
            report = consolidation.run(name, dry_run=True)
            for c in report.clusters:
                log.info("consolidation candidate %s in %s: %d notes, %s", c.cluster_id, name,
                         len(c.zk_ids), c.reason)
            if self.brain.settings.auto_consolidate and report.clusters:
                consolidation.run(name, dry_run=False,
                                  selected=[c.cluster_id for c in report.clusters])

    def evolution_drain(self) -> None:
        evolution = self.brain.evolution
        while evolution.process(EVOLUTION_BATCH, self.project) == EVOLUTION_BATCH:
            pass

    def forget_purge(self) -> None:
        log.info("forgotten notes purged: %d", self.brain.curation.purge_expired(self.project))

    def mirror_drain(self) -> None:
        mirror = self.brain.mirror
        while mirror.enabled and mirror.drain(MIRROR_BATCH) == MIRROR_BATCH:
            pass


def build_jobs(brain: Brain, holder: str | None = None,
               project: str | None = None) -> list[LeasedJob]:
    """The leased jobs; a project-scoped set has leases of its own, works on that project's
    notes and queue only, and leaves the Obsidian mirror (one vault for every project) to the
    whole-database scheduler."""
    s = brain.settings
    work = Maintenance(brain, project)
    suffix = f":{project}" if project else ""
    who = holder or default_holder()

    def leases() -> Leases:
        return Leases(brain.db, brain.clock, who)

    jobs = [
        LeasedJob(f"archive{suffix}", cron_trigger(s.archive_cron),
                  leases, work.archive),
        LeasedJob(f"consolidation-report{suffix}",
                  cron_trigger(s.consolidation_cron), leases,
                  work.consolidation_report),
        LeasedJob(f"forget-purge{suffix}", cron_trigger(s.forget_purge_cron), leases,
                  work.forget_purge),
        LeasedJob(f"evolution-drain{suffix}",
                  IntervalTrigger(seconds=s.evolution_interval_s, timezone=UTC), leases,
                  work.evolution_drain, running_ttl=CLAIM_FOR),
    ]
    if project is None:
        jobs.append(LeasedJob("mirror-drain", IntervalTrigger(
            seconds=s.evolution_interval_s, timezone=UTC), leases, work.mirror_drain,
            running_ttl=CLAIM_FOR))
    return jobs


def add_jobs(scheduler: BaseScheduler, jobs: list[LeasedJob]) -> None:
    for job in jobs:
        scheduler.add_job(job, job.trigger, id=job.name, name=job.name, coalesce=True,
                          max_instances=1, misfire_grace_time=3600)


def build_scheduler(brain: Brain, blocking: bool, holder: str | None = None,
                    project: str | None = None) -> BaseScheduler:
    """APScheduler with the leased jobs; call `.start()` (blocking runs until interrupted)."""
    scheduler: BaseScheduler = (BlockingScheduler if blocking else BackgroundScheduler)(
        timezone=UTC)
    add_jobs(scheduler, build_jobs(brain, holder, project))
    return scheduler


def start_in_background(brain: Brain) -> BaseScheduler | None:
    """For the shared HTTP service: the whole database's jobs in a daemon thread when
    SCHEDULER_IN_SERVER is on."""
    if not brain.settings.scheduler_in_server:
        return None
    scheduler = build_scheduler(brain, blocking=False)
    scheduler.start()
    log.info("maintenance scheduler running in the server")
    return scheduler


class SessionScheduler(Middleware):
    """For a stdio server, which serves one client window: maintenance limited to the projects
    that window's calls used (every answer names its project), so a window never works on
    other projects' notes or queues. The first answer naming a project adds that project's
    jobs (project-scoped leases: several windows on one project still run each job once)."""

    def __init__(self, brain: Brain) -> None:
        self.brain = brain
        self.projects: set[str] = set()
        self.scheduler: BaseScheduler | None = None
        self.lock = threading.Lock()

    async def on_call_tool(self, context: MiddlewareContext[Any], call_next: CallNext) -> Any:
        result = await call_next(context)
        project = (result.structured_content or {}).get("project")
        if isinstance(project, str) and self.brain.settings.scheduler_in_server:
            self.follow(project)
        return result

    def follow(self, project: str) -> None:
        """Schedule `project`'s jobs once ('*', all projects, is never a session's own)."""
        with self.lock:
            if project == "*" or project in self.projects:
                return
            self.projects.add(project)
            if self.scheduler is None:
                self.scheduler = BackgroundScheduler(timezone=UTC)
                self.scheduler.start()
            add_jobs(self.scheduler, build_jobs(self.brain, project=project))
        log.info("maintenance scheduled for project %s", project)


def run_blocking(settings: Settings) -> int:
    brain = Brain(settings)
    try:
        build_scheduler(brain, blocking=True).start()
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        brain.close()
    return 0


def cmd_scheduler(args: argparse.Namespace, settings: Settings) -> int:
    return run_blocking(settings)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("scheduler", help="run the maintenance jobs (archival, "
                                              "consolidation report, evolution queue)")
    parser.set_defaults(handler=cmd_scheduler)


def main() -> int:
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    return run_blocking(load_settings())
