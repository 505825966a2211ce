"""The maintenance cadence: weekly archival, a consolidation report, the evolution queue drain,
the new notes' sentences drain, the Obsidian mirror's drain and the daily purge of forgotten
notes whose undo window closed.

Background work runs wherever memory is written: the shared HTTP service (`kg-brain serve
--http`, the warm service stdio clients forward to) runs the jobs for the whole database from
its start, `kg-brain scheduler` too, and a stdio server serving its window in-process runs them
(both drains included) for the projects that window's calls use (SessionScheduler). Several
processes may run the same jobs, so every job first takes a lease in Neo4j
(kg_brain/surfaces/leasing.py): each runs once per period. The queues are drained one project at a
time behind that project's lease, whichever process drains them: one worker per project's queue.

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
import sys
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext

from kg_brain.base.errors import StoreUnavailable
from kg_brain.base.settings import Settings, load_settings
from kg_brain.domain.memory.evolution import CLAIM_FOR
from kg_brain.domain.memory.sentences import KIND as SENTENCE_KIND
from kg_brain.root.app import Brain, interrupt_on_sigterm
from kg_brain.store import jobs
from kg_brain.store.db import outlast
from kg_brain.surfaces.leasing import LeasedJob, Leases, cron_trigger, default_holder

if TYPE_CHECKING:  # APScheduler loads with the first scheduler, not before a server lists tools
    from apscheduler.schedulers.base import BaseScheduler

log = logging.getLogger(__name__)
CATCH_UP_EVERY = timedelta(minutes=10)
EVOLUTION_BATCH = 50
SENTENCE_BATCH = 50
MIRROR_BATCH = 50
EVOLUTION_DRAIN = "evolution-drain"
SENTENCE_DRAIN = "sentence-drain"
MIRROR_DRAIN = "mirror-drain"


class Maintenance:
    """The job bodies; `project` scopes them (a window's jobs, tests, one tenant).

    The queues are drained one project at a time, each behind that project's lease (the
    name of a window's drain job for it), so a window draining its project and the service
    draining the whole database never work on one project's queue at once."""

    def __init__(self, brain: Brain, project: str | None = None,
                 holder: str | None = None) -> None:
        self.brain = brain
        self.project = project
        self.holder = holder or default_holder()

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
        self._each_project(EVOLUTION_DRAIN, "evolve", self._evolve)

    def sentence_drain(self) -> None:
        self._each_project(SENTENCE_DRAIN, SENTENCE_KIND, self._sentences)

    def mirror_drain(self) -> None:
        if self.brain.mirror.enabled:
            self._each_project(MIRROR_DRAIN, "mirror", self._mirror)

    def forget_purge(self) -> None:
        log.info("forgotten notes purged: %d", self.brain.curation.purge_expired(self.project))

    def _evolve(self, project: str) -> None:
        self._batches(functools.partial(self.brain.evolution.process, EVOLUTION_BATCH, project),
                      EVOLUTION_BATCH, f"evolution drain of {project}")

    def _sentences(self, project: str) -> None:
        self._batches(functools.partial(self.brain.sentence_jobs.process, SENTENCE_BATCH,
                                        project), SENTENCE_BATCH, f"sentences drain of {project}")

    def _mirror(self, project: str) -> None:
        self._batches(functools.partial(self.brain.mirror.drain, MIRROR_BATCH, project),
                      MIRROR_BATCH, f"mirror drain of {project}")

    def _batches(self, batch: Callable[[], int], size: int, what: str) -> None:
        """Batch after batch while full; an unavailable database is waited out (`outlast`)."""
        stopping = self.brain.stopping
        done = 0
        while not stopping.is_set():
            n = outlast(batch, what, stopping)
            done += n
            if n < size:
                break
        if done:
            log.info("%s: %d job(s) done", what, done)

    def _each_project(self, job: str, kind: str, drain: Callable[[str], None]) -> None:
        """A window's own project (its job holds the lease); else every project with jobs
        ready, each while holding its lease (skipped when a window holds it)."""
        if self.project is not None:
            drain(self.project)
            return
        brain = self.brain
        waiting = outlast(lambda: jobs.pending_projects(brain.db, kind=kind, now=brain.clock()),
                          f"{job} projects", brain.stopping)
        held = Leases(brain.db, brain.clock, self.holder)
        for project in (row["project"] for row in waiting):
            name = f"{job}:{project}"
            if brain.stopping.is_set() or not held.acquire(name, CLAIM_FOR):
                continue
            try:
                drain(project)
            finally:
                held.release(name)


def build_jobs(brain: Brain, holder: str | None = None,
               project: str | None = None) -> list[LeasedJob]:
    """The leased jobs; a project-scoped set (a window's) has leases of its own and works on
    that project's notes and queues only."""
    from apscheduler.triggers.interval import IntervalTrigger

    from kg_brain.views.mirror import Mirror  # its HTTP client: not before a server lists tools

    s = brain.settings
    who = holder or default_holder()
    work = Maintenance(brain, project, who)
    suffix = f":{project}" if project else ""

    def leases() -> Leases:
        return Leases(brain.db, brain.clock, who)

    def drain(name: str, body: Callable[[], None]) -> LeasedJob:
        return LeasedJob(f"{name}{suffix}", IntervalTrigger(
            seconds=s.evolution_interval_s, timezone=UTC), leases, body, running_ttl=CLAIM_FOR)

    return [
        LeasedJob(f"archive{suffix}", cron_trigger(s.archive_cron),
                  leases, work.archive, catches_up=True),
        LeasedJob(f"consolidation-report{suffix}",
                  cron_trigger(s.consolidation_cron), leases,
                  work.consolidation_report, catches_up=True),
        LeasedJob(f"forget-purge{suffix}", cron_trigger(s.forget_purge_cron), leases,
                  work.forget_purge, catches_up=True),
        drain(EVOLUTION_DRAIN, work.evolution_drain),
        drain(SENTENCE_DRAIN, work.sentence_drain),
        *([drain(MIRROR_DRAIN, work.mirror_drain)] if Mirror.configured(s) else []),
    ]


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
