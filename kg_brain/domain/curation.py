"""Curation by hand: forgetting notes, editing their metadata, typed links made or removed by
hand, and a note's kept versions.

Forgetting turns a note into a tombstone in one transaction: the :Note label gives way to
:Forgotten, so every view that reads notes (search, session context, inbox, the Obsidian mirror,
backups) stops seeing it; its embedding is deleted, its mentions go (entities' live-note counts
follow, an entity no note mentions any more is removed) and its links are dropped. Its text
stays on the tombstone, in no index, for FORGET_UNDO_DAYS: `restore_forgotten` re-embeds it and
brings back its entities and the links whose other end is still a note. The scheduled purge then
deletes the text, the kept links and the revisions; the tombstone (id, project, when, reason)
stays, so restoring an older backup does not bring the note back. `hard` erases the tombstone and
the revisions at once (secrets): the first transaction forgets (and queues the mirror's removal),
the second erases, after the clauses quoting the note's title that evolution left in other notes'
contexts (and their revisions) are removed.

Edits of pinned, tags, note_kind and title keep a revision like any rewrite; only a new title
changes the embedded text, so only it re-embeds. Links made by hand carry origin 'manual' and are
never pruned or rewritten.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta

from pydantic import BaseModel, Field

from kg_brain.base import validate
from kg_brain.base.errors import InvalidInput, NotFound
from kg_brain.base.vocab import LinkType, MemoryType
from kg_brain.domain.deps import Deps
from kg_brain.domain.memory.reading import NoteReader
from kg_brain.domain.memory.revisions import Revisions
from kg_brain.domain.memory.text import embed_notes, embed_text, mention_list
from kg_brain.domain.memory.write import Writer
from kg_brain.enrichment.llm.entities import extract_entities
from kg_brain.enrichment.llm.text import trim_words
from kg_brain.shapes.models import iso
from kg_brain.store import curation as statements
from kg_brain.store import notes
from kg_brain.store.curation import Tombstone
from kg_brain.store.db import Tx
from kg_brain.store.entities import replace_mentions

MAX_IDS = 50
MAX_TAGS = 20
REASON_CHARS = 500
TITLE_CHARS = 200
TAG_CHARS = 64
PURGE_BATCH = 500
PREVIEW_CHARS = 160


class ForgetReport(BaseModel):
    project: str
    forgotten: list[str] = Field(description="the notes forgotten by this call")
    hard: bool = Field(description="true: erased outright, no tombstone, no undo")
    undo_until: str | None = Field(description="restore_forgotten works until then; null: never")
    redacted: list[str] = Field(default_factory=list,
                                description="kinds of secrets removed from the reason")


class RestoreReport(BaseModel):
    project: str
    restored: list[str]
    links: int = Field(description="links brought back (to notes that still exist)")


class Edited(BaseModel):
    project: str
    zk_id: str
    title: str
    note_kind: str
    pinned: bool
    tags: list[str]
    revision: int = Field(description="the version kept of the note as it was")
    reembedded: bool = Field(description="the title changed, so the note was re-embedded")
    redacted: list[str] = Field(default_factory=list,
                                description="kinds of secrets removed from the title and tags")


class LinkChange(BaseModel):
    project: str
    from_zk_id: str
    to_zk_id: str
    type: str
    origin: str = Field(description="who made the link: manual, explicit or auto")
    redacted: list[str] = Field(default_factory=list,
                                description="kinds of secrets removed from the reason")


class RevisionPreview(BaseModel):
    version: int
    title: str
    preview: str
    created: str | None
    cause: str


class History(BaseModel):
    project: str
    zk_id: str
    title: str
    revisions: list[RevisionPreview] = Field(description="kept versions, newest first")
    hint: str = "revert_note(zk_id, version) brings a version back (the current one is kept)"


class Reverted(BaseModel):
    project: str
    zk_id: str
    version: int = Field(description="the version brought back")
    title: str


def without_quotes(context: str, needles: list[str]) -> str:
    """The context without the clauses (`See also "<title>".`) that quote one of the needles."""
    for needle in needles:
        context = re.sub(r"\s*(?:[A-Z][a-z]*(?: [a-z]+){0,2} )?" + re.escape(needle), "", context)
    return context.strip()


def ids_of(zk_ids: Sequence[str]) -> list[str]:
    """Validated, deduplicated, 1 to MAX_IDS."""
    if isinstance(zk_ids, str) or not 1 <= len(zk_ids) <= MAX_IDS:
        raise InvalidInput(f"give 1 to {MAX_IDS} note ids as a list")
    return list(dict.fromkeys(validate.zk_id(z) for z in zk_ids))


def one_project(projects: dict[str, str]) -> str:
    """The one project the notes belong to; a call never spans projects."""
    names = sorted(set(projects.values()))
    if len(names) != 1:
        spread = "; ".join(f"{z} is in {p}" for z, p in sorted(projects.items()))
        raise InvalidInput(f"these notes belong to different projects ({spread}); "
                           "curate one project at a time")
    return names[0]


def tags_of(tags: Sequence[str], hide: Callable[[str], str]) -> list[str]:
    """Validated, secrets hidden (before lower case: key formats are case-sensitive), lower
    case, deduplicated."""
    if isinstance(tags, str) or len(tags) > MAX_TAGS:
        raise InvalidInput(f"tags must be a list of at most {MAX_TAGS} words")
    return list(dict.fromkeys(hide(validate.content(t, TAG_CHARS, "a tag")).lower()
                              for t in tags))


class Hidden:
    """Texts of one call with their secrets hidden, and the kinds found, for the answer."""

    def __init__(self, writer: Writer) -> None:
        self.writer = writer
        self.kinds: list[str] = []

    def __call__(self, text: str) -> str:
        cleaned, found = self.writer.hide(text)
        self.kinds += [k for k in found if k not in self.kinds]
        return cleaned


class Curation:
    def __init__(self, deps: Deps, reader: NoteReader, writer: Writer,
                 revisions: Revisions) -> None:
        self.deps = deps
        self.db = deps.db
        self.reader = reader
        self.writer = writer
        self.revisions = revisions

    # --- forgetting ------------------------------------------------------------------------------
    def forget(self, zk_ids: Sequence[str], reason: str, hard: bool = False) -> ForgetReport:
        ids = ids_of(zk_ids)
        hidden = Hidden(self.writer)
        why = hidden(validate.content(reason, REASON_CHARS, "reason"))
        live = {r["note"]["zk_id"]: r["note"]["project"]
                for r in notes.get_notes(self.db, zk_ids=ids)}
        gone = {t["zk_id"]: t for t in statements.forgotten_notes(self.db, zk_ids=ids)}
        missing = [z for z in ids if z not in live and z not in gone]
        if missing:
            raise NotFound(f"no note with id {', '.join(missing)}")
        if gone and not hard:
            raise InvalidInput(f"{', '.join(gone)} already forgotten; restore_forgotten brings "
                               "a note back, hard=true erases it for good")
        project = one_project(live | {z: t["project"] for z, t in gone.items()})
        now = self.deps.clock()
        until = now + timedelta(days=self.deps.settings.forget_undo_days)
        if live:
            self.db.write_tx(lambda tx: self._forget(tx, list(live), why, until))
        if hard:
            self._clean_copies(project, ids)
            statements.erase_forgotten(self.db, zk_ids=ids)
        return ForgetReport(project=project, forgotten=ids, hard=hard,
                            undo_until=None if hard else iso(until), redacted=hidden.kinds)

    def _clean_copies(self, project: str, ids: list[str]) -> None:
        """Before a hard forget erases the tombstones: the clauses quoting their titles that
        evolution left in other notes' contexts, and in those notes' kept revisions, go; the
        notes are re-embedded and, being changed, rewritten in the mirror."""
        titles = [t["title"] for t in statements.forgotten_notes(self.db, zk_ids=ids)
                  if t["title"]]
        needles = [f'"{trim_words(t.replace(chr(34), chr(39)), 80)}".' for t in titles]
        copies = statements.contexts_naming(self.db, project=project, needles=needles)
        if not copies:
            return
        contexts = [without_quotes(c["context"] or "", needles) for c in copies]
        vectors = self.deps.embedder.encode_many(
            [embed_text(c["title"] or "", c["content"] or "", text)
             for c, text in zip(copies, contexts, strict=True)])
        rows = [{"zk_id": c["zk_id"], "version": c["version"], "context": text,
                 "vector": vector if c["version"] is None else None}
                for c, text, vector in zip(copies, contexts, vectors, strict=True)]
        self.db.write_tx(lambda tx: statements.set_contexts(tx, rows=rows))

    def _forget(self, tx: Tx, ids: list[str], reason: str, until: datetime) -> None:
        now = self.deps.clock()
        replace_mentions(tx, rows=[{"zk_id": z, "entities": []} for z in ids], now=now)
        statements.forget_notes(tx, zk_ids=ids, reason=reason, now=now, purge_after=until)

    def restore_forgotten(self, zk_ids: Sequence[str]) -> RestoreReport:
        ids = ids_of(zk_ids)
        found = {t["zk_id"]: t for t in statements.forgotten_notes(self.db, zk_ids=ids)}
        missing = [z for z in ids if z not in found]
        if missing:
            raise NotFound(f"no forgotten note with id {', '.join(missing)} (hard-forgotten "
                           "notes cannot come back)")
        purged = [z for z, t in found.items() if t["content"] is None]
        if purged:
            raise InvalidInput(f"{', '.join(purged)} was purged after its undo window; its "
                               "content is gone")
        project = one_project({z: t["project"] for z, t in found.items()})
        rows = self._revived([found[z] for z in ids])
        now = self.deps.clock()

        def work(tx: Tx) -> int:
            done = statements.restore_forgotten(tx, rows=rows, now=now)
            replace_mentions(tx, rows=[{"zk_id": r["zk_id"], "entities": r["entities"]}
                                       for r in rows], now=now)
            return sum(r["links"] for r in done)

        links = self.db.write_tx(work)
        return RestoreReport(project=project, restored=ids, links=links)

    def _revived(self, kept: list[Tombstone]) -> list[dict[str, object]]:
        """Each tombstone's vector and sentences' vectors (one batch) and entities, read again
        from its text."""
        vectors = embed_notes(self.deps.embedder, [
            (t["title"] or "", t["content"] or "", t["context"] or "") for t in kept])
        return [{"zk_id": t["zk_id"], "vector": v, "sentences": parts,
                 "entities": mention_list(extract_entities(t["content"] or ""))}
                for t, (v, parts) in zip(kept, vectors, strict=True)]

    def purge_expired(self, project: str | None = None) -> int:
        """Tombstones whose undo window closed lose their text and revisions."""
        scope = validate.project(project) if project is not None else None
        purged = 0
        while True:
            batch = statements.purge_forgotten(self.db, now=self.deps.clock(), project=scope,
                                               limit=PURGE_BATCH)
            purged += len(batch)
            if len(batch) < PURGE_BATCH:
                return purged

    # --- metadata and links ----------------------------------------------------------------------
    def edit(self, zk_id: str, pinned: bool | None = None, tags: Sequence[str] | None = None,
             note_kind: str | None = None, title: str | None = None) -> Edited:
        fields: dict[str, object] = {}
        hidden = Hidden(self.writer)
        if pinned is not None:
            fields["pinned"] = bool(pinned)
        if tags is not None:
            fields["tags"] = tags_of(tags, hidden)
        if note_kind is not None:
            fields["note_kind"] = validate.note_kind(note_kind).value
        if title is not None:
            # hidden as written, then on one line: a secret a detector knows by its lines
            # (a key block, a manifest's data) must not lose them first
            fields["title"] = " ".join(hidden(validate.content(title, TITLE_CHARS,
                                                               "title")).split())
        if not fields:
            raise InvalidInput("nothing to edit: give pinned, tags, note_kind or title")
        current = self.reader.current(zk_id)
        if current["memory_type"] == MemoryType.ARCHIVED.value:
            raise InvalidInput(f"{current['zk_id']} is archived; restore_note it first")
        vector = parts = None
        if "title" in fields and fields["title"] != (current["title"] or ""):
            [(vector, parts)] = embed_notes(self.deps.embedder, [
                (str(fields["title"]), current["content"], current["context"] or "")])
        kept = self.db.write_tx(lambda tx: notes.rewrite_note(
            tx, zk_id=current["zk_id"], fields=fields, vector=vector, sentences=parts,
            now=self.deps.clock(), cause="edit"))
        note = self.reader.get([current["zk_id"]])[0]
        return Edited(project=note.project, zk_id=note.zk_id, title=note.title,
                      note_kind=note.note_kind, pinned=note.pinned, tags=note.tags,
                      revision=kept["version"] if kept else 0, reembedded=vector is not None,
                      redacted=hidden.kinds)

    def _pair(self, from_zk_id: str, to_zk_id: str, link_type: str) -> tuple[str, str, LinkType,
                                                                               str]:
        kind = validate.choice(LinkType, link_type, "link type")
        src, dst = self.reader.current(from_zk_id), self.reader.current(to_zk_id)
        if src["zk_id"] == dst["zk_id"]:
            raise InvalidInput("a note cannot be linked to itself")
        project = one_project({src["zk_id"]: src["project"], dst["zk_id"]: dst["project"]})
        return src["zk_id"], dst["zk_id"], kind, project

    def link(self, from_zk_id: str, to_zk_id: str, link_type: str, reason: str) -> LinkChange:
        src, dst, kind, project = self._pair(from_zk_id, to_zk_id, link_type)
        hidden = Hidden(self.writer)
        why = hidden(validate.content(reason, REASON_CHARS, "reason"))
        self.db.write_tx(lambda tx: self.writer.link(tx, src, dst, kind, why, origin="manual"))
        return LinkChange(project=project, from_zk_id=src, to_zk_id=dst, type=kind.value,
                          origin="manual", redacted=hidden.kinds)

    def unlink(self, from_zk_id: str, to_zk_id: str, link_type: str) -> LinkChange:
        src, dst, kind, project = self._pair(from_zk_id, to_zk_id, link_type)
        removed = self.db.write_tx(lambda tx: statements.unlink_notes(
            tx, src=src, dst=dst, type=kind.value))
        if not removed:
            raise NotFound(f"there is no {kind.value} link from {src} to {dst}")
        return LinkChange(project=project, from_zk_id=src, to_zk_id=dst, type=kind.value,
                          origin=removed[0]["origin"])

    # --- versions --------------------------------------------------------------------------------
    def history(self, zk_id: str, limit: int = 20) -> History:
        current = self.reader.current(zk_id)
        kept = self.revisions.history(current["zk_id"])[:limit]
        return History(project=current["project"], zk_id=current["zk_id"],
                       title=current["title"] or "", revisions=[
                           RevisionPreview(version=r.version, title=r.title,
                                           preview=r.content[:PREVIEW_CHARS], created=r.created,
                                           cause=r.cause) for r in kept])

    def revert(self, zk_id: str, version: int) -> Reverted:
        number = validate.bounded(version, 1, 1_000_000, "version")
        note = self.revisions.restore(zk_id, number)
        return Reverted(project=note.project, zk_id=note.zk_id, version=number, title=note.title)

