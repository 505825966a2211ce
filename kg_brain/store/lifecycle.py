"""Decay, archival, restore, the inbox, and the statements of cluster consolidation."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, TypedDict

from kg_brain.store.statement import On, read, write

if TYPE_CHECKING:  # rows name the driver's type; importing it loads the driver
    from neo4j.time import DateTime


class DecayPage(TypedDict):
    total: int
    rows: list[dict[str, Any]]


class ArchivedNote(TypedDict):
    zk_id: str
    title: str | None
    project: str
    note_kind: str
    access_count: int
    inbound: int
    days_idle: float
    decay_score: float
    reason: str


class RestoredNote(TypedDict):
    zk_id: str
    was: str | None


class NoteId(TypedDict):
    zk_id: str


class ProjectName(TypedDict):
    project: str


class ClusterPair(TypedDict):
    a: str
    b: str
    a_title: str | None
    b_title: str | None
    similarity: float
    link_type: str | None


class ClusterMember(TypedDict):
    zk_id: str
    title: str | None
    content: str
    context: str | None
    note_kind: str
    access_count: int
    last_accessed: DateTime | None


class MovedLinks(TypedDict):
    moved: int
    neighbours: list[str]


@read("lifecycle/decay_scores.cypher")
def decay_scores(on: On, *, project: str | None, now: datetime, stale_days: int,
                 max_access: int, threshold: float, half_life_days: float, saturation: int,
                 w_recency: float, w_importance: float, due_only: bool,
                 limit: int) -> DecayPage:
    """How many notes qualify and the first `limit`, soonest due first."""


@write("lifecycle/archive_stale_notes.cypher", "zk_id")
def archive_stale_notes(on: On, *, project: str | None, now: datetime, stale_days: int,
                        max_access: int, threshold: float, half_life_days: float,
                        saturation: int, w_recency: float, w_importance: float,
                        batch: int) -> list[ArchivedNote]:
    """Archive up to `batch` of the notes archival takes now."""


@write("lifecycle/restore_note.cypher", "zk_id")
def restore_note(on: On, *, zk_id: str, now: datetime) -> RestoredNote | None:
    """Archived -> permanent; `was` tells what it was (None: the note is missing)."""


@read("lifecycle/list_inbox.cypher")
def list_inbox(on: On, *, project: str, limit: int) -> list[NoteId]:
    """Fleeting notes, oldest first."""


@read("lifecycle/list_projects.cypher")
def list_projects(on: On) -> list[ProjectName]:
    """Projects with permanent notes."""


@read("lifecycle/cluster_pairs.cypher")
def cluster_pairs(on: On, *, project: str, min_similarity: float, fetch: int, rescan: bool,
                  merge_types: list[str], excluded_kinds: list[str]) -> list[ClusterPair]:
    """Candidate merge pairs: near-duplicates or strongly linked notes of the same kind."""


@read("lifecycle/cluster_members.cypher")
def cluster_members(on: On, *, zk_ids: list[str], project: str) -> list[ClusterMember]:
    """The members still permanent, as the synthesis needs them."""


@write("lifecycle/lock_cluster.cypher")
def lock_cluster(on: On, *, zk_ids: list[str], project: str, now: datetime) -> list[NoteId]:
    """Write-lock the members first; returns those still permanent."""


@write("lifecycle/move_links.cypher", "neighbours")
def move_links(on: On, *, merged: str, originals: list[str]) -> MovedLinks:
    """The members' links to other notes, moved onto the merged note."""


@write("lifecycle/supersede_notes.cypher", "zk_id")
def supersede_notes(on: On, *, merged: str, originals: list[str], now: datetime,
                    reason: str) -> list[NoteId]:
    """Originals archived, each SUPERSEDED by the merged note."""
