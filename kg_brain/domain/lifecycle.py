"""Selective forgetting: decay scores, archival, restore, and the inbox.

Decay score (0..1, higher = more alive) = 0.6 x recency + 0.4 x importance, where

- recency = exp(-ln 2 x effective_idle / HALF_LIFE_DAYS): halves every 30 idle days;
- days_idle = days since `last_accessed`, or since `created` when never accessed;
- effective_idle = days_idle / (1 + inbound), inbound = typed links into the note from live
  notes (SUPERSEDES and FOLLOWS excluded: being replaced, or written next to, is no use of a
  note): a note that two others build on ages three times slower;
- importance = min(1, ln(1 + access_count) / ln(1 + ACCESS_SATURATION)): 20 lifetime accesses
  count as fully important, the first few count most.

A note is archived when all three hold: idle > STALE_DAYS_THRESHOLD days, access_count <
STALE_ACCESS_THRESHOLD, decay score < decay_archive_threshold. Pinned notes never archive.
Only permanent notes decay: fleeting notes are the inbox, which distillation (not time) empties.
Archival is computed set-based in Cypher over the whole graph from the injected clock's `now`;
archived notes are never deleted and `restore` reverses it. Reading access, archival and the
decay report first write the process's waiting access stamps (kg_brain/domain/access.py).
"""

from __future__ import annotations

import logging
import math
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field, PrivateAttr

from kg_brain.base import validate
from kg_brain.base.errors import InvalidInput, NotFound
from kg_brain.domain.deps import Deps
from kg_brain.domain.memory.reading import NoteReader
from kg_brain.shapes.models import NoteView
from kg_brain.store import entities
from kg_brain.store import lifecycle as statements
from kg_brain.store.db import Tx
from kg_brain.store.lifecycle import ArchivedNote, RestoredNote

log = logging.getLogger(__name__)
W_RECENCY = 0.6
W_IMPORTANCE = 0.4
HALF_LIFE_DAYS = 30.0
ACCESS_SATURATION = 20
ARCHIVE_BATCH = 20_000


def decay_score(days_idle: float, access_count: int, inbound_links: int = 0) -> float:
    """The formula in the module docstring; lifecycle/decay_scores.cypher computes the same."""
    effective_idle = max(0.0, days_idle) / (1 + max(0, inbound_links))
    recency = math.exp(-math.log(2.0) * effective_idle / HALF_LIFE_DAYS)
    importance = min(1.0, math.log1p(max(0, access_count)) / math.log1p(ACCESS_SATURATION))
    return W_RECENCY * recency + W_IMPORTANCE * importance


class StaleCandidate(BaseModel):
    zk_id: str
    title: str
    project: str
    note_kind: str
    decay_score: float
    days_idle: float
    access_count: int
    inbound_links: int = 0
    reason: str


class ArchiveReport(BaseModel):
    dry_run: bool
    total: int = Field(description="dry run: how many notes would be archived; apply: how many "
                                   "were")
    candidates: list[StaleCandidate] = Field(
        description="the first of them (up to the limit asked), soonest due and lowest decay "
                    "score first")
    archived: int = Field(description="notes archived by this call (0 in a dry run)")
    _archived_ids: list[str] = PrivateAttr(default_factory=list)

    @classmethod
    def applied(cls, ids: list[str], listed: list[StaleCandidate]) -> ArchiveReport:
        report = cls(dry_run=False, total=len(ids), archived=len(ids), candidates=listed)
        report._archived_ids = ids
        return report

    @property
    def archived_ids(self) -> list[str]:
        """Every note this call archived (not only those listed), for the mirror."""
        return self._archived_ids


class DecayEntry(BaseModel):
    zk_id: str
    title: str
    project: str
    decay_score: float
    days_idle: float
    access_count: int
    inbound_links: int = 0
    pinned: bool
    archive_due: str | None = Field(
        description="when archival takes the note if nothing touches it; null = never "
                    "(pinned or used often enough)")


class Lifecycle:
    def __init__(self, deps: Deps, reader: NoteReader) -> None:
        self.settings = deps.settings
        self.db = deps.db
        self.clock = deps.clock
        self.access = deps.access
        self.reader = reader

    def _decay_params(self, project: str | None) -> dict[str, Any]:
        s = self.settings
        return {
            "project": validate.project(project) if project is not None else None,
            "now": self.clock(), "stale_days": s.stale_days_threshold,
            "max_access": s.stale_access_threshold, "threshold": s.decay_archive_threshold,
            "half_life_days": HALF_LIFE_DAYS, "saturation": ACCESS_SATURATION,
            "w_recency": W_RECENCY, "w_importance": W_IMPORTANCE,
        }

    def archive_stale(self, dry_run: bool = True, project: str | None = None,
                      limit: int = 50) -> ArchiveReport:
        """Whole graph (or one project), no page cap; apply commits in chunks of ARCHIVE_BATCH.
        Every qualifying note is counted and (when applying) archived; `limit` only bounds how
        many are listed back."""
        limit = validate.bounded(limit, 1, 1000, "limit")
        params = self._decay_params(project)
        self.access.flush()
        if dry_run:
            page = statements.decay_scores(self.db, **params, due_only=True, limit=limit)
            return ArchiveReport(dry_run=True, total=page["total"], archived=0,
                                 candidates=[_candidate(r) for r in page["rows"]])
        listed: list[ArchivedNote] = []
        ids: list[str] = []
        while True:  # chunks commit separately: short transactions, durable progress
            chunk = self.db.write_tx(lambda tx: _archive_chunk(tx, params))
            listed += chunk[:limit - len(listed)]
            ids += [r["zk_id"] for r in chunk]
            if len(chunk) < ARCHIVE_BATCH:
                break
        log.info("archived %d stale notes", len(ids))
        return ArchiveReport.applied(ids, [_candidate(r) for r in listed])

    def decay_report(self, limit: int = 20, project: str | None = None) -> list[DecayEntry]:
        """Live permanent notes, soonest archival first; never-due notes (pinned, used) last."""
        limit = validate.bounded(limit, 1, 1000, "limit")
        self.access.flush()
        page = statements.decay_scores(self.db, **self._decay_params(project), due_only=False,
                                       limit=limit)
        rows = page["rows"]
        return [DecayEntry(zk_id=r["zk_id"], title=r["title"] or "", project=r["project"],
                           decay_score=round(float(r["decay_score"]), 4),
                           days_idle=round(float(r["days_idle"]), 2),
                           access_count=int(r["access_count"]), inbound_links=int(r["inbound"]),
                           pinned=bool(r["pinned"]), archive_due=_iso_text(r["archive_due"]))
                for r in rows]

    def restore(self, zk_id: str) -> NoteView:
        """Archived -> permanent, archive fields cleared; the restore counts as an access."""
        zk_id = validate.zk_id(zk_id)
        row = self.db.write_tx(lambda tx: _restore(tx, zk_id, self.clock()))
        if row is None:
            raise NotFound(f"no note with id {zk_id}")
        if row["was"] != "archived":
            raise InvalidInput(f"{zk_id} is {row['was']}, not archived; nothing to restore")
        return self.reader.get([zk_id])[0]

    def inbox(self, project: str, limit: int = 50) -> list[NoteView]:
        """Fleeting notes awaiting distillation, oldest first."""
        project = validate.project(project)
        limit = validate.bounded(limit, 1, 500, "limit")

        def work(tx: Tx) -> list[NoteView]:
            ids = [r["zk_id"] for r in statements.list_inbox(tx, project=project, limit=limit)]
            return self.reader.get(ids, tx) if ids else []

        return self.db.read_tx(work)


def _iso_text(text: str | None) -> str | None:
    """Cypher's datetime text (`...Z`) in the ISO form every other field uses (`...+00:00`)."""
    return datetime.fromisoformat(text).isoformat() if text else None


def _candidate(row: ArchivedNote | dict[str, Any]) -> StaleCandidate:
    return StaleCandidate(zk_id=row["zk_id"], title=row["title"] or "", project=row["project"],
                          note_kind=row["note_kind"],
                          decay_score=round(float(row["decay_score"]), 4),
                          days_idle=round(float(row["days_idle"]), 2),
                          access_count=int(row["access_count"]),
                          inbound_links=int(row["inbound"]), reason=row["reason"])


def _archive_chunk(tx: Tx, params: dict[str, Any]) -> list[ArchivedNote]:
    """One chunk archived and its entities' live counts lowered, together."""
    chunk = statements.archive_stale_notes(tx, **params, batch=ARCHIVE_BATCH)
    entities.shift_counts(tx, zk_ids=[r["zk_id"] for r in chunk], delta=-1)
    return chunk


def _restore(tx: Tx, zk_id: str, now: datetime) -> RestoredNote | None:
    row = statements.restore_note(tx, zk_id=zk_id, now=now)
    if row is not None and row["was"] == "archived":
        entities.shift_counts(tx, zk_ids=[zk_id], delta=1)
    return row
