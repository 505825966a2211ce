"""brain_stats: what is stored and whether the store is healthy, for a one-call health check.

Everything reported was measured by the call: the status is `online` only when the database
answered every query and every index is online, `degraded` when it answered but something is
wrong (an index not online, dead-lettered jobs; `problems` says what), and `unreachable` when it
did not answer (`error` says why). The tool reports an unreachable database as a status rather
than failing, so a health check always has an answer.
"""

from __future__ import annotations

from collections import Counter
from typing import Literal

from pydantic import BaseModel, Field

from kg_brain.domain.deps import Deps
from kg_brain.store import admin, jobs

DEAD_LETTERS_SHOWN = 10
TOP_PROJECTS = 20


class IndexState(BaseModel):
    name: str
    type: str
    state: str
    properties: list[str] = Field(default_factory=list)


class DeadLetter(BaseModel):
    key: str
    kind: str
    zk_id: str
    project: str
    attempts: int
    error: str | None
    finished: str | None


class BrainStats(BaseModel):
    status: Literal["online", "degraded", "unreachable"] = Field(
        description="online: every query answered, indexes online, no dead letters; degraded: "
                    "answered, see problems; unreachable: the database did not answer")
    reachable: bool = Field(description="the database answered this call")
    problems: list[str] = Field(default_factory=list, description="what makes it degraded")
    error: str | None = Field(None, description="why the database did not answer")
    neo4j_version: str | None = None
    neo4j_edition: str | None = None
    uri: str
    notes: int = 0
    by_memory_type: dict[str, int] = Field(default_factory=dict)
    by_note_kind: dict[str, int] = Field(default_factory=dict)
    by_project: dict[str, int] = Field(default_factory=dict, description=(
        f"the {TOP_PROJECTS} largest projects and the caller's"))
    projects: int = Field(0, description="all projects with notes")
    relationships: int = 0
    relationships_by_type: dict[str, int] = Field(default_factory=dict)
    evolution_queue: int = Field(0, description="pending memory-evolution jobs")
    jobs_pending: dict[str, int] = Field(default_factory=dict, description="pending, by kind")
    jobs_failed: dict[str, int] = Field(
        default_factory=dict, description="dead letters by kind: gave up after bounded "
                                          "attempts; `kg-brain jobs retry` queues them again")
    dead_letters: list[DeadLetter] = Field(default_factory=list,
                                           description="the newest dead letters, with errors")
    indexes: list[IndexState] = Field(default_factory=list)


def unreachable(uri: str, error: str) -> BrainStats:
    return BrainStats(status="unreachable", reachable=False, error=error, uri=uri)


def _largest(counts: Counter[str], keep: str | None) -> dict[str, int]:
    chosen = dict(counts.most_common(TOP_PROJECTS))
    if keep is not None and keep in counts:
        chosen[keep] = counts[keep]
    return chosen


class Stats:
    def __init__(self, deps: Deps) -> None:
        self.db = deps.db

    def report(self, project: str | None = None) -> BrainStats:
        """Counts of the whole database; `by_project` names the TOP_PROJECTS largest projects
        and `project` (a shared database may hold thousands)."""
        db = self.db
        version = admin.server_version(db)
        counts = admin.note_counts(db)
        totals: dict[str, Counter[str]] = {k: Counter() for k in ("memory_type", "note_kind",
                                                                  "project")}
        for row in counts:
            for key, counter in totals.items():
                counter[str(row[key])] += int(row["notes"])
        rels = {r["type"]: int(r["relationships"]) for r in admin.relationship_counts(db)}
        states = jobs.job_states(db)
        pending = {r["kind"]: int(r["jobs"]) for r in states if r["state"] == "pending"}
        failed = {r["kind"]: int(r["jobs"]) for r in states if r["state"] == "failed"}
        indexes = [IndexState(name=i["name"], type=i["type"], state=i["state"],
                              properties=list(i["properties"] or []))
                   for i in admin.list_indexes(db)]
        problems = [f"index {i.name} is {i.state}" for i in indexes if i.state != "ONLINE"]
        problems += [f"{n} {kind} job(s) failed for good" for kind, n in sorted(failed.items())]
        return BrainStats(
            status="degraded" if problems else "online", reachable=True, problems=problems,
            neo4j_version=str(version["version"]), neo4j_edition=str(version["edition"]),
            uri=db.conn.uri, notes=sum(int(r["notes"]) for r in counts),
            by_memory_type=dict(totals["memory_type"]), by_note_kind=dict(totals["note_kind"]),
            by_project=_largest(totals["project"], project), projects=len(totals["project"]),
            relationships=sum(rels.values()),
            relationships_by_type=rels, evolution_queue=pending.get("evolve", 0),
            jobs_pending=pending, jobs_failed=failed, indexes=indexes,
            dead_letters=[DeadLetter(**d["job"])
                          for d in jobs.dead_letters(db, limit=DEAD_LETTERS_SHOWN)],
        )
