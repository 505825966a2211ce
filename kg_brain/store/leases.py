"""Named leases in Neo4j: one process per period runs each scheduled job."""

from __future__ import annotations

from datetime import datetime
from typing import TypedDict

from neo4j.time import DateTime

from kg_brain.store.statement import On, write


class LeaseState(TypedDict):
    holder: str
    expires: DateTime
    acquired: bool


class LeaseName(TypedDict):
    name: str


class LastRun(TypedDict):
    last_run: DateTime


@write("leases/acquire_lease.cypher")
def acquire_lease(on: On, *, lease: str, holder: str, now: datetime,
                  until: datetime) -> LeaseState:
    """Granted only when the lease is new or expired."""


@write("leases/release_lease.cypher")
def release_lease(on: On, *, lease: str, holder: str, until: datetime) -> LeaseName | None:
    """Hold until `until` (now = give back); None when `holder` does not hold it."""


@write("leases/finish_lease.cypher")
def finish_lease(on: On, *, lease: str, holder: str, now: datetime,
                 until: datetime) -> LeaseName | None:
    """Record the run and hold until `until`; None when `holder` does not hold it."""


@write("leases/last_run.cypher")
def last_run(on: On, *, lease: str, now: datetime) -> LastRun:
    """When the job last finished a run; a job never seen before starts its clock at `now`."""
