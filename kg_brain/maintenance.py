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

Missed runs catch up: a finished run records its time on the lease (`last_run`; a job first
seen starts its clock then). At start and every CATCH_UP_EVERY after, each cron job with a fire
time between its last run and now (no process was alive then: a laptop asleep on Sunday night)
runs once, behind the same lease, so of several processes that notice it together one runs it.

A scheduler stops before its Brain closes the driver: the drains end between two batches once
the Brain is stopping, and the running job is waited for.
"""

from __future__ import annotations

import argparse
import functools
import json
import logging
import os
import re
import socket
import sys
import threading
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext

from kg_brain.app import Brain, interrupt_on_sigterm
from kg_brain.clock import Clock
from kg_brain.db import Database, outlast
from kg_brain.errors import SetupError, StoreUnavailable
from kg_brain.memory.evolution import CLAIM_FOR
from kg_brain.settings import Settings, load_settings
from kg_brain.store import leases

if TYPE_CHECKING:  # APScheduler loads with the first scheduler, not before a server lists tools
    from apscheduler.schedulers.base import BaseScheduler
    from apscheduler.triggers.base import BaseTrigger
    from apscheduler.triggers.cron import CronTrigger

log = logging.getLogger(__name__)
RUNNING_TTL = timedelta(minutes=30)
CATCH_UP_EVERY = timedelta(minutes=10)
EVOLUTION_BATCH = 50
MIRROR_BATCH = 50
_WEEKDAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
_WEEKDAY_NUMBER = re.compile(r"(?<![/\d])\d+")


def cron_trigger(expression: str) -> CronTrigger:
    """A standard 5-field crontab in UTC. APScheduler 3 counts weekdays from Monday = 0, cron
    from Sunday = 0 (and 7), so numeric weekdays are translated to names first."""
    from apscheduler.triggers.cron import CronTrigger

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

    def release(self, name: str) -> bool:
        return leases.release_lease(self.db, lease=name, holder=self.holder,
                                    until=self.clock()) is not None

    def finish(self, name: str, until: datetime) -> bool:
        """A run finished now: record it, hold the lease until `until`."""
        return leases.finish_lease(self.db, lease=name, holder=self.holder, now=self.clock(),
                                   until=until) is not None

    def last_run(self, name: str) -> datetime:
        """The last finished run; the first time a job is asked about, now."""
        return leases.last_run(self.db, lease=name, now=self.clock())["last_run"].to_native()


class LeasedJob:
    """A job body behind a lease: runs only in the process that wins this period's lease."""

    def __init__(self, name: str, trigger: BaseTrigger, leases: Callable[[], Leases],
                 body: Callable[[], object], running_ttl: timedelta = RUNNING_TTL,
                 catches_up: bool = False) -> None:
        self.name = name
        self.trigger = trigger
        self.running_ttl = running_ttl
        self.catches_up = catches_up  # a sparse (cron) job: a missed fire runs late, once
        self.leases = leases  # built at fire time: the server starts without touching Neo4j
        self.body = body

    def __call__(self) -> bool:
        """Returns whether this process ran the job (False: another holder has the period, or
        the database was unavailable: logged, and the next fire or catch-up retries)."""
        try:
            return self._run()
        except StoreUnavailable as exc:
            log.warning("job %s did not run: %s", self.name, exc)
            return False

    def _run(self) -> bool:
        leases = self.leases()
        if not leases.acquire(self.name, self.running_ttl):
            log.debug("job %s: lease held elsewhere, skipped", self.name)
            return False
        try:
            self.body()
        except BaseException:
            leases.release(self.name)  # the next fire, in any process, retries
            raise
        leases.finish(self.name, self._period_end(leases.clock()))
        return True

    def catch_up(self) -> bool:
        """Run now when a fire time passed since the last finished run; returns whether this
        process ran it."""
        leases = self.leases()
        last = leases.last_run(self.name)
        due = self.trigger.get_next_fire_time(None, last + timedelta(seconds=1))
        if due is None or due > leases.clock():
            return False
        log.info("job %s: missed its run at %s, catching up", self.name, due.isoformat())
        return self()

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
        """Batch after batch; an unavailable database is waited out (`outlast`), not fatal."""
        evolution, stopping = self.brain.evolution, self.brain.stopping
        batch = functools.partial(evolution.process, EVOLUTION_BATCH, self.project)
        while (outlast(batch, "evolution drain", stopping) == EVOLUTION_BATCH
               and not stopping.is_set()):
            pass

    def forget_purge(self) -> None:
        log.info("forgotten notes purged: %d", self.brain.curation.purge_expired(self.project))

    def mirror_drain(self) -> None:
        mirror, stopping = self.brain.mirror, self.brain.stopping
        batch = functools.partial(mirror.drain, MIRROR_BATCH)
        while (mirror.enabled and outlast(batch, "mirror drain", stopping) == MIRROR_BATCH
               and not stopping.is_set()):
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

    from apscheduler.triggers.interval import IntervalTrigger

    jobs = [
        LeasedJob(f"archive{suffix}", cron_trigger(s.archive_cron),
                  leases, work.archive, catches_up=True),
        LeasedJob(f"consolidation-report{suffix}",
                  cron_trigger(s.consolidation_cron), leases,
                  work.consolidation_report, catches_up=True),
        LeasedJob(f"forget-purge{suffix}", cron_trigger(s.forget_purge_cron), leases,
                  work.forget_purge, catches_up=True),
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
    """The jobs, and one catch-up for those that run rarely (at start, then every
    CATCH_UP_EVERY): a fire missed while no process ran is run once."""
    from apscheduler.triggers.interval import IntervalTrigger

    for job in jobs:
        scheduler.add_job(job, job.trigger, id=job.name, name=job.name, coalesce=True,
                          max_instances=1, misfire_grace_time=3600)
    sparse = [job for job in jobs if job.catches_up]
    name = f"catch-up:{sparse[0].name}" if sparse else "catch-up"
    scheduler.add_job(lambda: catch_up(sparse), IntervalTrigger(
        seconds=CATCH_UP_EVERY.total_seconds(), timezone=UTC), id=name, name=name,
        next_run_time=datetime.now(UTC), coalesce=True, max_instances=1)


def build_scheduler(brain: Brain, blocking: bool, holder: str | None = None,
                    project: str | None = None) -> BaseScheduler:
    """APScheduler with the leased jobs; call `.start()` (blocking runs until interrupted)."""
    from apscheduler.schedulers.background import BackgroundScheduler
    from apscheduler.schedulers.blocking import BlockingScheduler

    scheduler: BaseScheduler = (BlockingScheduler if blocking else BackgroundScheduler)(
        timezone=UTC)
    add_jobs(scheduler, build_jobs(brain, holder, project))
    return scheduler


def catch_up(jobs: list[LeasedJob]) -> list[str]:
    """Run each job that missed a fire (at start, after a gap); the names run here. A job the
    database cannot be asked about now is checked again at the next catch-up."""
    ran = []
    for job in jobs:
        try:
            if job.catch_up():
                ran.append(job.name)
        except StoreUnavailable as exc:
            log.warning("catch-up of %s skipped: %s", job.name, exc)
    return ran


def stop_scheduler(scheduler: BaseScheduler) -> None:
    """No new fires; wait for the running job (its drain ends at the next batch boundary)."""
    from apscheduler.schedulers import SchedulerNotRunningError

    try:
        scheduler.shutdown(wait=True)
    except SchedulerNotRunningError:
        return
    log.info("maintenance scheduler stopped")


def start_in_background(brain: Brain) -> BaseScheduler | None:
    """For the shared HTTP service: the whole database's jobs in a daemon thread when
    SCHEDULER_IN_SERVER is on, stopped by the Brain's close before the driver closes."""
    if not brain.settings.scheduler_in_server:
        return None
    scheduler = build_scheduler(brain, blocking=False)
    scheduler.start()
    if not brain.on_close(lambda: stop_scheduler(scheduler)):
        stop_scheduler(scheduler)  # the server stopped while this was starting
        return None
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
                from apscheduler.schedulers.background import BackgroundScheduler

                scheduler = BackgroundScheduler(timezone=UTC)
                scheduler.start()
                if not self.brain.on_close(lambda: stop_scheduler(scheduler)):
                    stop_scheduler(scheduler)  # the server is stopping
                    return
                self.scheduler = scheduler
            add_jobs(self.scheduler, build_jobs(self.brain, project=project))
        log.info("maintenance scheduled for project %s", project)


def run_blocking(settings: Settings) -> int:
    """Until Ctrl-C or SIGTERM; then the running job finishes before the driver closes."""
    brain = Brain(settings)
    scheduler = build_scheduler(brain, blocking=True)
    brain.on_close(lambda: stop_scheduler(scheduler))
    interrupt_on_sigterm()
    try:
        scheduler.start()
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        brain.close()
    return 0


def cmd_scheduler(args: argparse.Namespace, settings: Settings) -> int:
    return run_blocking(settings)


def cmd_jobs(args: argparse.Namespace, settings: Settings) -> int:
    """`kg-brain jobs list`: queue depths and dead letters; `jobs retry`: dead letters queued
    again with a fresh attempt budget."""
    brain = Brain(settings)
    try:
        if args.action == "retry":
            keys = brain.evolution.retry_failed(args.project)
            sys.stdout.write(f"{len(keys)} failed evolution job(s) queued again\n")
            return 0
        report = brain.stats.report()
        shown = {"pending": report.jobs_pending, "failed": report.jobs_failed,
                 "dead_letters": [d.model_dump() for d in report.dead_letters]}
        sys.stdout.write(json.dumps(shown, indent=2) + "\n")
        return 0
    finally:
        brain.close()


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("scheduler", help="run the maintenance jobs (archival, "
                                              "consolidation report, evolution queue)")
    parser.set_defaults(handler=cmd_scheduler)
    jobs = sub.add_parser("jobs", help="the evolution queue: list pending and failed jobs, or "
                                       "retry the failed ones (dead letters)")
    jobs.add_argument("action", choices=["list", "retry"])
    jobs.add_argument("--project", help="retry only this project's failed jobs")
    jobs.set_defaults(handler=cmd_jobs)


def main() -> int:
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    return run_blocking(load_settings())
