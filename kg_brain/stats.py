"""brain_stats: what is stored and whether the store is healthy, for a one-call health check."""

from __future__ import annotations

from collections import Counter

from pydantic import BaseModel, Field

from kg_brain.deps import Deps
from kg_brain.store import admin, jobs

TOP_PROJECTS = 20


class IndexState(BaseModel):
    name: str
    type: str
    state: str
    properties: list[str] = Field(default_factory=list)


class BrainStats(BaseModel):
    status: str = Field(description="'online' when Neo4j answered every query")
    neo4j_version: str
    neo4j_edition: str
    uri: str
    notes: int
    by_memory_type: dict[str, int]
    by_note_kind: dict[str, int]
    by_project: dict[str, int] = Field(description=f"the {TOP_PROJECTS} largest projects and "
                                                   "the caller's")
    projects: int = Field(0, description="all projects with notes")
    relationships: int
    relationships_by_type: dict[str, int]
    evolution_queue: int = Field(description="pending memory-evolution jobs")
    jobs_pending: dict[str, int] = Field(description="pending jobs by kind")
    indexes: list[IndexState]


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
        counts = admin.note_counts(db)
        totals: dict[str, Counter[str]] = {k: Counter() for k in ("memory_type", "note_kind",
                                                                  "project")}
        for row in counts:
            for key, counter in totals.items():
                counter[str(row[key])] += int(row["notes"])
        rels = {r["type"]: int(r["relationships"]) for r in admin.relationship_counts(db)}
        pending = {r["kind"]: int(r["pending"]) for r in jobs.queue_depth(db)}
        version = admin.server_version(db)
        return BrainStats(
            status="online", neo4j_version=str(version["version"]),
            neo4j_edition=str(version["edition"]), uri=db.conn.uri,
            notes=sum(int(r["notes"]) for r in counts),
            by_memory_type=dict(totals["memory_type"]), by_note_kind=dict(totals["note_kind"]),
            by_project=_largest(totals["project"], project), projects=len(totals["project"]),
            relationships=sum(rels.values()),
            relationships_by_type=rels, evolution_queue=pending.get("evolve", 0),
            jobs_pending=pending,
            indexes=[IndexState(name=i["name"], type=i["type"], state=i["state"],
                                properties=list(i["properties"] or []))
                     for i in admin.list_indexes(db)],
        )
