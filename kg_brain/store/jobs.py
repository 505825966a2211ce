"""The durable job queue in Neo4j (evolution and mirror jobs): enqueue, claim, complete, back
off, dead-letter and retry."""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypedDict

from kg_brain.store.statement import On, read, write


class JobKey(TypedDict):
    key: str


class ClaimedJob(TypedDict):
    key: str
    zk_id: str
    project: str
    attempts: int


class ProjectName(TypedDict):
    project: str


class QueueDepth(TypedDict):
    kind: str
    pending: int


class JobState(TypedDict):
    kind: str
    state: str
    jobs: int


class DeadLetter(TypedDict):
    job: dict[str, Any]


@write("jobs/enqueue_jobs.cypher")
def enqueue_jobs(on: On, *, rows: list[dict[str, Any]], now: datetime) -> list[JobKey]:
    """Idempotent: one job per key, rows of {key, kind, zk_id, project}."""


@write("jobs/claim_jobs.cypher")
def claim_jobs(on: On, *, kind: str, now: datetime, until: datetime, limit: int,
               worker: str) -> list[ClaimedJob]:
    """Pending jobs of a kind, claimed until `until`, oldest first."""


@write("jobs/claim_project_jobs.cypher")
def claim_project_jobs(on: On, *, kind: str, project: str, now: datetime, until: datetime,
                       limit: int, worker: str) -> list[ClaimedJob]:
    """The same, within one project."""


@read("jobs/pending_projects.cypher")
def pending_projects(on: On, *, kind: str, now: datetime) -> list[ProjectName]:
    """Projects with jobs of a kind ready to claim, longest waiting first."""


@write("jobs/complete_job.cypher")
def complete_job(on: On, *, key: str, now: datetime, state: str,
                 error: str | None) -> JobKey | None:
    """None when the job was no longer pending: someone else completed it."""


@write("jobs/release_jobs.cypher")
def release_jobs(on: On, *, keys: list[str], worker: str) -> list[JobKey]:
    """Claims this worker gives back unrun (it is stopping)."""


@write("jobs/drop_jobs.cypher")
def drop_jobs(on: On, *, keys: list[str]) -> list[JobKey]:
    """Jobs deleted (their work done leaves nothing to keep)."""


@read("jobs/queue_depth.cypher")
def queue_depth(on: On) -> list[QueueDepth]:
    """Pending jobs per kind."""


@write("jobs/defer_job.cypher")
def defer_job(on: On, *, key: str, until: datetime, error: str) -> JobKey | None:
    """Back off: pending, unclaimable until `until`; None when no longer pending."""


@write("jobs/retry_jobs.cypher")
def retry_jobs(on: On, *, kind: str, project: str | None) -> list[JobKey]:
    """Failed jobs of a kind (one project, or all) pending again."""


@read("jobs/dead_letters.cypher")
def dead_letters(on: On, *, limit: int) -> list[DeadLetter]:
    """Failed jobs, newest first."""


@read("jobs/job_states.cypher")
def job_states(on: On) -> list[JobState]:
    """Jobs per kind and state."""
