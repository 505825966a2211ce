"""A note's kept previous versions, and bringing one back."""

from __future__ import annotations

from pydantic import BaseModel

from kg_brain.base.errors import NotFound
from kg_brain.domain.deps import Deps
from kg_brain.domain.memory.reading import NoteReader
from kg_brain.domain.memory.text import embed_notes
from kg_brain.domain.memory.write import Writer
from kg_brain.enrichment.llm.entities import extract_entities
from kg_brain.enrichment.llm.types import Enrichment
from kg_brain.shapes.models import NoteView, iso
from kg_brain.store import notes


class Revision(BaseModel):
    version: int
    title: str
    content: str
    context: str
    keywords: list[str]
    tags: list[str]
    memory_type: str | None
    created: str | None
    cause: str


class Revisions:
    def __init__(self, deps: Deps, reader: NoteReader, writer: Writer) -> None:
        self.deps = deps
        self.db = deps.db
        self.reader = reader
        self.writer = writer

    def history(self, zk_id: str) -> list[Revision]:
        current = self.reader.current(zk_id)
        return [Revision(version=r["version"], title=r["title"] or "", content=r["content"],
                         context=r["context"] or "", keywords=r["keywords"] or [],
                         tags=r["tags"] or [], memory_type=r["memory_type"],
                         created=iso(r["created"]), cause=r["cause"])
                for r in notes.list_revisions(self.db, zk_id=current["zk_id"])]

    def restore(self, zk_id: str, version: int) -> NoteView:
        """Bring back a kept version; the version being replaced is itself kept first."""
        chosen = next((r for r in self.history(zk_id) if r.version == version), None)
        if chosen is None:
            raise NotFound(f"{zk_id} has no revision {version}")
        e = Enrichment(title=chosen.title, context=chosen.context, keywords=chosen.keywords,
                       tags=chosen.tags, entities=extract_entities(chosen.content))
        [vectors] = embed_notes(self.deps.embedder, [(e.title, chosen.content, e.context)])
        current = self.reader.current(zk_id)
        self.db.write_tx(lambda tx: self.writer.rewrite(
            tx, current["zk_id"], chosen.content, e, vectors, f"restore revision {version}"))
        return self.reader.get([current["zk_id"]])[0]
