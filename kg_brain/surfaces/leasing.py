"""Leases in Neo4j and the jobs that run behind them: of several processes firing the same job,
only the one that takes the lease runs it (kg_brain/surfaces/maintenance.py says which jobs and
when).

A finished run records its time on the lease and holds it until just before the job's next
fire time, so the others, firing at the same moment, find it taken; a holder that crashes
mid-run stops renewing and its lease expires after the running TTL.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from kg_brain.base.clock import Clock
from kg_brain.base.errors import SetupError, StoreUnavailable
from kg_brain.store import jobs, leases
from kg_brain.store.db import Database

if TYPE_CHECKING:  # APScheduler loads with the first scheduler, not before a server lists tools
    from apscheduler.triggers.base import BaseTrigger
    from apscheduler.triggers.cron import CronTrigger

log = logging.getLogger(__name__)
RUNNING_TTL = timedelta(minutes=30)
_WEEKDAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
_WEEKDAY_NUMBER = re.compile(r"(?<![/\d])\d+")


def cron_trigger(expression: str) -> CronTrigger:
    """A standard 5-field crontab in UTC. APScheduler 3 counts weekdays from Monday = 0, cron
    from Sunday = 0 (and 7), so numeric weekdays are translated to names first."""
    fields = expression.split()
    if len(fields) != 5:
        raise SetupError(f"invalid cron expression {expression!r}: expected 5 fields")
    minute, hour, day, month, weekday = fields
    from apscheduler.triggers.cron import CronTrigger

    weekday = _WEEKDAY_NUMBER.sub(lambda m: _WEEKDAYS[int(m.group()) % 7], weekday)
    try:
        return CronTrigger(minute=minute, hour=hour, day=day, month=month,
                           day_of_week=weekday, timezone=UTC)
    except ValueError as exc:
        raise SetupError(f"invalid cron expression {expression!r}: {exc}") from None


def default_holder() -> str:
    return f"{jobs.worker_name()}:{uuid.uuid4().hex[:6]}"


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
