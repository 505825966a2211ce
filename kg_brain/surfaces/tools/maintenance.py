"""Maintenance tools: archival of stale notes and its undo, the decay report, manual
consolidation of overlapping notes, and the health check."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

from kg_brain.base.errors import StoreUnavailable
from kg_brain.domain import stats
from kg_brain.domain.consolidation import CLUSTER_MIN_COSINE, ConsolidationReport
from kg_brain.domain.lifecycle import ArchiveReport, DecayEntry
from kg_brain.shapes.models import NoteView
from kg_brain.surfaces.tools.base import ALL_PROJECTS, ProjectArg, ScopeArg, ToolArea, ZkId


class ScopedArchiveReport(ArchiveReport):
    project: str = Field(description="the project archived, '*' for all")


class DecayReport(BaseModel):
    project: str = Field(description="the project reported, '*' for all")
    entries: list[DecayEntry]


class ScopedConsolidationReport(ConsolidationReport):
    project: str


class MaintenanceTools(ToolArea):
    """Archival, decay, consolidation and the health check."""

    def archive_stale_notes(
        self,
        dry_run: Annotated[bool, Field(description="list candidates only; false applies")] = True,
        project: ScopeArg = None,
        limit: Annotated[int, Field(ge=1, le=1000, description="most notes listed back; all "
                                                               "are counted and archived")] = 50,
    ) -> ScopedArchiveReport:
        """Soft-archive unused notes (weekly maintenance): idle, rarely used, low decay score.
        Run with dry_run first. Archived notes leave searches; restore_note brings one back."""
        scope = self._scope(project)
        report = self.brain.lifecycle.archive_stale(dry_run, scope, limit)
        return ScopedArchiveReport(project=scope or ALL_PROJECTS, **report.model_dump())

    def restore_note(self, zk_id: ZkId) -> NoteView:
        """Restore one archived note to permanent."""
        return self.brain.lifecycle.restore(zk_id)

    def decay_report(
        self,
        limit: Annotated[int, Field(ge=1, le=1000, description="most notes")] = 20,
        project: ScopeArg = None,
    ) -> DecayReport:
        """The lowest-decay notes, likely to be archived next, with the date archival is due."""
        scope = self._scope(project)
        return DecayReport(project=scope or ALL_PROJECTS,
                           entries=self.brain.lifecycle.decay_report(limit, scope))

    def consolidate_clusters(
        self,
        project: ProjectArg = None,
        dry_run: Annotated[bool, Field(description="list clusters only; false merges")] = True,
        selected_cluster_ids: Annotated[list[str] | None, Field(
            description="cluster ids from a dry run to merge")] = None,
        min_similarity: Annotated[float, Field(ge=0.0, le=1.0, description=(
            "cluster threshold, the cosine of two notes' vectors"))] = CLUSTER_MIN_COSINE,
        max_clusters: Annotated[int, Field(ge=1, le=100, description="most clusters")] = 20,
    ) -> ScopedConsolidationReport:
        """Merge clusters of overlapping notes, manually: dry run first, then apply the selected
        cluster ids. Originals are archived and superseded by the merged note."""
        p = self._project(project)
        report = self.brain.consolidation.run(p, dry_run, selected_cluster_ids, min_similarity,
                                              max_clusters)
        return ScopedConsolidationReport(project=p, **report.model_dump())

    def brain_stats(self) -> stats.BrainStats:
        """Health check, all measured now: whether Neo4j answered (status online, degraded or
        unreachable, with the problems or the error), its version, note counts by type, kind
        and project (the largest and this one), links by type, job queues and dead letters,
        index states."""
        try:
            return self.brain.stats.report(self._project(None))
        except StoreUnavailable as exc:
            return stats.unreachable(self.brain.settings.neo4j_uri or "local server", str(exc))
