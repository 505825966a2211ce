"""Browsing a project: notes listed by kind, tag, pinned state, memory type, date range or the
entity they mention, a page at a time; and a project's overview.

Pages are keyset pages: the statement orders by (k, zk_id), k being the creation (or last update)
time in milliseconds, negated for newest first, and the opaque cursor carries the last row's
(k, zk_id) with the order it belongs to. A page never repeats or skips a note that stayed put,
however many notes arrive meanwhile. Answers are previews, at most MAX_LIMIT per page; a page
keeps the cursor after each of its notes, so a surface that cuts it to fit an answer resumes
paging at the first note it left out (`NotePage.head`).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, Field, PrivateAttr

from kg_brain.base import validate
from kg_brain.base.errors import InvalidInput
from kg_brain.base.vocab import MemoryType
from kg_brain.domain.deps import Deps
from kg_brain.shapes.models import EntityView, NotePreview, iso
from kg_brain.store import curation as statements

ORDERS = ("newest", "oldest", "updated")
MAX_LIMIT = 100
OVERVIEW_ITEMS = 10
ENTITY_CHARS = 200
_LIVE = [MemoryType.PERMANENT.value, MemoryType.FLEETING.value]


class NotePage(BaseModel):
    project: str
    notes: list[NotePreview]
    next_cursor: str | None = Field(description="pass as cursor for the next page; null: last")
    hint: str = "previews only: recall(zk_ids) for full notes"
    _resume: list[str] = PrivateAttr(default_factory=list)  # the cursor after each note

    def head(self, count: int) -> NotePage:
        """The page's first `count` notes, its cursor resuming at the first note left out: an
        answer cut to fit a size budget still pages to every note."""
        if count >= len(self.notes):
            return self
        cut = self.model_copy(update={"notes": self.notes[:count],
                                      "next_cursor": self._resume[count - 1]})
        cut._resume = self._resume[:count]
        return cut


class Headline(BaseModel):
    zk_id: str
    title: str
    note_kind: str = ""


class ProjectOverview(BaseModel):
    project: str
    notes_by_type: dict[str, int]
    notes_by_kind: dict[str, int] = Field(description="live notes (not archived) by kind")
    top_entities: list[EntityView]
    pinned: list[Headline]
    open_thread: Headline | None
    forgotten: int = Field(description="tombstones of forgotten notes")


def encode_cursor(order: str, k: int, zk_id: str) -> str:
    raw = json.dumps({"o": order, "k": k, "z": zk_id}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode()


def decode_cursor(cursor: str, order: str) -> tuple[int, str]:
    refusal = InvalidInput("invalid cursor: pass next_cursor from a previous list_notes answer "
                           "unchanged")
    try:
        data = json.loads(base64.urlsafe_b64decode(cursor.encode("ascii")))
        k, zk_id, was = data["k"], validate.zk_id(data["z"]), data["o"]
    except (ValueError, TypeError, KeyError, binascii.Error, UnicodeError, InvalidInput):
        raise refusal from None
    if not isinstance(k, int) or isinstance(k, bool):
        raise refusal
    if was != order:
        raise InvalidInput(f"this cursor pages order={was!r}; ask with the same order")
    return k, zk_id


def moment(value: str | None, what: str) -> datetime | None:
    """An ISO-8601 date or datetime; one without a zone is UTC."""
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value.strip()) if isinstance(value, str) else None
    except ValueError:
        parsed = None
    if parsed is None:
        raise InvalidInput(f"{what} must be an ISO-8601 date or datetime, e.g. 2026-01-31")
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def choices(values: Sequence[str] | None, check: Any) -> list[str] | None:
    if values is None:
        return None
    if isinstance(values, str):
        raise InvalidInput("expected a list")
    return list(dict.fromkeys(check(v) for v in values)) or None


class Browsing:
    def __init__(self, deps: Deps) -> None:
        self.db = deps.db

    def list_notes(self, project: str, note_kinds: Sequence[str] | None = None,
                   tags: Sequence[str] | None = None, pinned: bool | None = None,
                   memory_types: Sequence[str] | None = None, since: str | None = None,
                   until: str | None = None, entity: str | None = None, order: str = "newest",
                   limit: int = 20, cursor: str | None = None) -> NotePage:
        if order not in ORDERS:
            raise InvalidInput(f"unknown order {order!r}; allowed: {', '.join(ORDERS)}")
        name = validate.project(project)
        after_k, after_id = decode_cursor(cursor, order) if cursor else (None, None)
        size = validate.bounded(limit, 1, MAX_LIMIT, "limit")
        rows = statements.list_notes(
            self.db, project=name,
            memory_types=choices(memory_types, lambda v: validate.memory_type(v).value) or _LIVE,
            note_kinds=choices(note_kinds, lambda v: validate.note_kind(v).value),
            tags=choices(tags, lambda v: validate.content(v, 64, "a tag").lower()),
            pinned=pinned, since=moment(since, "since"), until=moment(until, "until"),
            entity=validate.content(entity, ENTITY_CHARS, "entity").lower() if entity else None,
            order=order, after_k=after_k, after_id=after_id, limit=size + 1)
        resume = [encode_cursor(order, r["k"], r["zk_id"]) for r in rows[:size]]
        page = NotePage(
            project=name,
            notes=[NotePreview(**{**r, "created": iso(r["created"]), "updated": iso(r["updated"])})
                   for r in rows[:size]],
            next_cursor=resume[-1] if len(rows) > size else None)
        page._resume = resume
        return page

    def overview(self, project: str) -> ProjectOverview:
        name = validate.project(project)
        row = statements.project_overview(self.db, project=name, limit=OVERVIEW_ITEMS)
        thread = row["thread"]
        return ProjectOverview(
            project=name, notes_by_type={r["name"]: r["notes"] for r in row["by_type"]},
            notes_by_kind={r["name"]: r["notes"] for r in row["by_kind"]},
            top_entities=[EntityView(**e) for e in row["entities"]],
            pinned=[Headline(zk_id=p["zk_id"], title=p["title"] or "", note_kind=p["note_kind"])
                    for p in row["pinned"]],
            open_thread=Headline(zk_id=thread["zk_id"], title=thread["title"] or "",
                                 note_kind="open_thread") if thread else None,
            forgotten=row["forgotten"])
