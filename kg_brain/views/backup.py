"""Lossless backup and restore as JSON Lines: notes, typed relationships and revisions.

A backup is a header line, every note (all properties, the embedding and its sentences' vectors
included), then the typed relationships between notes, then the revisions, then a footer with
counts. Temporal values are written as Cypher's own string form with their type and parsed back
by Cypher, so zones, offsets and nanoseconds survive; the embedding is restored as a float32
vector property, the sentences' vectors as the note's Sentence nodes (a backup without them
leaves the note's own).

Restoring keeps zk_ids and replaces the notes it names (restore in place, idempotent). Restoring
`as_project` copies instead: every note gets a fresh zk_id and the new project, and links and
revisions follow the id map, so a backup can be loaded beside its original in the same database.
A header marked `exact_links` (a migration's backup, which lists every link of its notes) is
restored exactly: a link between two of its notes that it does not list (one the migration
re-typed or added) is dropped once every link is back.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from kg_brain.base import validate
from kg_brain.base.clock import utc_now
from kg_brain.base.errors import InvalidInput
from kg_brain.base.vocab import EMBEDDING_DIM, LinkType
from kg_brain.domain.memory.text import mention_list
from kg_brain.enrichment.llm.entities import extract_entities
from kg_brain.shapes.models import iso
from kg_brain.store import views
from kg_brain.store.db import Database, Tx
from kg_brain.store.entities import replace_mentions
from kg_brain.store.notes import new_zk_id

FORMAT = "kg-brain-export"
VERSION = 1
PAGE = 500
Record = dict[str, Any]
Progress = Callable[[str, int], None]  # (phase, items done since the last call)


@dataclass
class Counts:
    notes: int = 0
    links: int = 0
    revisions: int = 0
    skipped: int = 0  # links or revisions whose notes were not in the database
    id_map: dict[str, str] = field(default_factory=dict)  # old -> new zk_id (copies only)


def _typed(props: list[list[Any]]) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """Cypher's [key, type, value] triples -> plain values and {key: [type, text]} temporals."""
    plain: dict[str, Any] = {}
    temporal: dict[str, list[str]] = {}
    for key, kind, value in sorted(props):
        if kind in ("ZONED DATETIME", "LOCAL DATETIME", "DATE", "ZONED TIME", "LOCAL TIME",
                    "DURATION"):
            temporal[key] = [kind, value]
        elif kind.startswith(("STRING", "INTEGER", "FLOAT", "BOOLEAN", "LIST<STRING",
                              "LIST<INTEGER", "LIST<FLOAT", "LIST<BOOLEAN", "LIST<NOTHING")):
            plain[key] = value
        else:
            raise InvalidInput(f"property {key!r} has type {kind}, which a backup cannot hold")
    return plain, temporal


# --- export ----------------------------------------------------------------------------------
def export_records(db: Database, projects: list[str] | None = None,
                   zk_ids: list[str] | None = None, now: datetime | None = None,
                   progress: Progress | None = None) -> Iterator[Record]:
    """Yield the backup's records in file order; reads page by page, never the whole graph."""
    yield {"kind": "header", "format": FORMAT, "version": VERSION, "exported_at": iso(now),
           "projects": projects}
    ids: list[str] = []
    after = ""
    while True:
        rows = views.export_notes(db, after=after, projects=projects, zk_ids=zk_ids, limit=PAGE)
        for row in rows:
            plain, temporal = _typed(row["props"])
            yield {"kind": "note", "zk_id": row["zk_id"], "props": plain, "temporal": temporal,
                   "embedding": row["embedding"], "sentences": row["sentences"]}
        ids += [r["zk_id"] for r in rows]
        if progress and rows:
            progress("notes", len(rows))
        if len(rows) < PAGE:
            break
        after = rows[-1]["zk_id"]
    links = revisions = 0
    for start in range(0, len(ids), PAGE):
        page = ids[start:start + PAGE]
        link_rows, revision_rows = db.read_tx(lambda tx, p=page: (
            views.export_links(tx, zk_ids=p, projects=projects),
            views.export_revisions(tx, zk_ids=p)))
        for row in link_rows:
            plain, temporal = _typed(row["props"])
            yield {"kind": "link", "src": row["src"], "type": row["type"], "dst": row["dst"],
                   "props": plain, "temporal": temporal}
        for row in revision_rows:
            plain, temporal = _typed(row["props"])
            yield {"kind": "revision", "note": row["note"], "props": plain, "temporal": temporal}
        links += len(link_rows)
        revisions += len(revision_rows)
        if progress:
            progress("links and revisions", len(page))
    yield {"kind": "footer", "notes": len(ids), "links": links, "revisions": revisions}


def write_jsonl(records: Iterable[Record], out: IO[str]) -> Counts:
    counts = Counts()
    for record in records:
        out.write(json.dumps(record, ensure_ascii=False, allow_nan=False) + "\n")
        if record["kind"] == "footer":
            counts.notes, counts.links = record["notes"], record["links"]
            counts.revisions = record["revisions"]
    return counts


# --- reading files ---------------------------------------------------------------------------
def read_file(path: Path) -> tuple[bool, Iterator[Record]]:
    """(is_backup, records). A backup is JSON Lines opening with a header (or a JSON document
    with a `records` list, as migrations write); anything else is plain note records: a JSON
    list, a JSON object with a `notes` list, or JSON Lines of objects."""
    with path.open(encoding="utf-8") as fh:
        first = fh.readline().strip()
    try:
        head = json.loads(first) if first else None
    except json.JSONDecodeError:
        head = None
    if isinstance(head, dict) and not isinstance(head.get("records", head.get("notes")), list):
        return head.get("format") == FORMAT, _jsonl(path)  # JSON Lines
    try:
        doc = head if head is not None else json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{path}: neither JSON nor JSON Lines ({exc})") from None
    if isinstance(doc, dict) and isinstance(doc.get("records"), list):
        return True, iter(doc["records"])
    notes = doc.get("notes") if isinstance(doc, dict) else doc
    if not isinstance(notes, list):
        raise InvalidInput(f"{path}: expected a list of note records")
    return False, iter(notes)


def _jsonl(path: Path) -> Iterator[Record]:
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if line.strip():
                try:
                    yield json.loads(line)
                except json.JSONDecodeError as exc:
                    raise InvalidInput(f"{path}:{number}: bad JSON ({exc.msg})") from None


# --- restore ---------------------------------------------------------------------------------
class Restorer:
    """Writes backup records in batches; notes are flushed before any link or revision."""

    def __init__(self, db: Database, as_project: str | None = None,
                 progress: Progress | None = None, batch: int = PAGE) -> None:
        self.db = db
        self.as_project = validate.project(as_project) if as_project else None
        self.progress = progress
        self.batch = batch
        self.counts = Counts()
        self._pending: dict[str, list[Record]] = {"note": [], "link": [], "revision": []}
        # exact links: the backup's notes and its links as 'src TYPE dst'
        self._exact: tuple[set[str], set[str]] | None = None

    def restore(self, records: Iterable[Record]) -> Counts:
        for number, record in enumerate(records):
            kind = record.get("kind") if isinstance(record, dict) else None
            if number == 0 and (kind != "header" or record.get("format") != FORMAT):
                raise InvalidInput("not a kg-brain backup: the first record is not its header")
            if kind == "header" and record.get("version") != VERSION:
                raise InvalidInput(f"backup version {record.get('version')} is not {VERSION}")
            if kind == "header" and record.get("exact_links"):
                self._exact = (set(), set())
            if kind in self._pending:
                self._pending[kind].append(record)
                if len(self._pending[kind]) >= self.batch:
                    self._flush(kind)
        for kind in ("note", "link", "revision"):
            self._flush(kind)
        self._drop_unlisted()
        return self.counts

    def _flush(self, kind: str) -> None:
        if kind != "note":
            self._flush("note")
        records, self._pending[kind] = self._pending[kind], []
        if not records:
            return
        write = {"note": self._notes, "link": self._links, "revision": self._revisions}[kind]
        write(records)
        if self.progress:
            self.progress(f"{kind}s", len(records))

    def _id(self, zk_id: str) -> str:
        return self.counts.id_map.get(zk_id, zk_id)

    def _notes(self, records: list[Record]) -> None:
        rows = []
        for r in records:
            props = dict(r["props"])
            if self.as_project:
                props["zk_id"] = self.counts.id_map.setdefault(r["zk_id"], new_zk_id())
                props["project"] = self.as_project
            embedding = r.get("embedding")
            if embedding is not None and len(embedding) != EMBEDDING_DIM:
                raise InvalidInput(f"{r['zk_id']}: embedding has {len(embedding)} values, "
                                   f"not {EMBEDDING_DIM}")
            rows.append({"zk_id": props["zk_id"], "props": props, "embedding": embedding,
                         "sentences": r.get("sentences"),
                         "temporal": _temporal(r)})
        mentions = [{"zk_id": row["zk_id"],
                 "entities": mention_list(extract_entities(str(row["props"].get("content", ""))))}
                for row in rows]
        now = utc_now()

        def work(tx: Tx) -> int:  # entities are read again from the text, not from the file
            restored = views.restore_notes(tx, rows=rows)
            replace_mentions(tx, rows=mentions, now=now)
            return len(restored)

        self.counts.notes += self.db.write_tx(work)
        if self._exact is not None:
            self._exact[0].update(row["zk_id"] for row in rows)

    def _links(self, records: list[Record]) -> None:
        rows = [{"src": self._id(r["src"]), "dst": self._id(r["dst"]),
                 "type": _link_type(r["type"]), "props": r["props"], "temporal": _temporal(r)}
                for r in records]
        written = len(views.restore_links(self.db, rows=rows))
        self.counts.links += written
        self.counts.skipped += len(rows) - written
        if self._exact is not None:
            self._exact[1].update(f"{row['src']} {row['type']} {row['dst']}" for row in rows)

    def _drop_unlisted(self) -> None:
        """Exact restore: between the backup's notes, only the links it lists remain."""
        if self._exact is None:
            return
        notes, listed = sorted(self._exact[0]), sorted(self._exact[1])
        for start in range(0, len(notes), self.batch):
            views.drop_unlisted_links(self.db, srcs=notes[start:start + self.batch],
                                      zk_ids=notes, listed=listed,
                                      link_types=[t.value for t in LinkType])

    def _revisions(self, records: list[Record]) -> None:
        rows = []
        for r in records:
            note = self._id(r["note"])
            rows.append({"note": note, "version": r["props"]["version"],
                         "props": {**r["props"], "zk_id": note}, "temporal": _temporal(r)})
        written = len(views.restore_revisions(self.db, rows=rows))
        self.counts.revisions += written
        self.counts.skipped += len(rows) - written


def _temporal(record: Record) -> list[dict[str, str]]:
    return [{"key": k, "type": t, "value": v} for k, (t, v) in record.get("temporal", {}).items()]


def _link_type(value: str) -> str:
    try:
        return LinkType(value).value
    except ValueError:
        raise InvalidInput(f"unknown relationship type {value!r} in backup") from None


def restore_records(db: Database, records: Iterable[Record], as_project: str | None = None,
                    progress: Progress | None = None) -> Counts:
    return Restorer(db, as_project, progress).restore(records)
