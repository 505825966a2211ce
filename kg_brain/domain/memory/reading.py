"""Full notes by id, and the current state of one note before it is rewritten."""

from __future__ import annotations

from kg_brain.base import validate
from kg_brain.base.errors import NotFound
from kg_brain.domain.deps import Deps
from kg_brain.shapes.models import NoteView
from kg_brain.store import notes
from kg_brain.store.notes import NoteForUpdate
from kg_brain.store.statement import On


class NoteReader:
    def __init__(self, deps: Deps) -> None:
        self.db = deps.db
        self.access = deps.access

    def found(self, zk_ids: list[str], on: On | None = None) -> list[NoteView]:
        """The notes that exist, in the order asked (a forgotten note does not). Their access
        counts include this process's searches: read on the database, the stamps still waiting
        are written first (within a caller's transaction they are not, as the stamps'
        transaction could wait on that one's locks)."""
        ids = [validate.zk_id(z) for z in zk_ids]
        if on is None:
            self.access.flush()
        return [NoteView.from_row(r) for r in notes.get_notes(on or self.db, zk_ids=ids)]

    def get(self, zk_ids: list[str], on: On | None = None) -> list[NoteView]:
        """The notes in the order asked; any unknown id is an error naming it."""
        found = self.found(zk_ids, on)
        missing = {validate.zk_id(z) for z in zk_ids} - {n.zk_id for n in found}
        if missing:
            raise NotFound(f"no note with id {', '.join(sorted(missing))}")
        return found

    def current(self, zk_id: str) -> NoteForUpdate:
        row = notes.note_for_update(self.db, zk_id=validate.zk_id(zk_id))
        if row is None:
            raise NotFound(f"no note with id {zk_id}")
        return row
