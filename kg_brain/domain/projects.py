"""Projects: which key a workspace identity's notes are filed under, and moving notes between
keys (rename, merge, split, the migration from folder names).

Notes carry their project as a key (`project` on every note, entity and job, what every
statement filters on). A workspace identity (kg_brain/surfaces/workspace.py: a repository's root
commit, a folder's path) is a `(:Project {id, key, name})` node: the first time an identity is seen
it takes its readable name as key when no other identity holds that name, else the name and the
first hex digits of its id (`api-3f2a9c1d`), so two repositories called `api` are filed, and
shown, apart. Notes already under the name (written before identities, or with an explicit
project) are the first claimer's: a store keeps working as it was until `kg-brain migrate
projects` sorts it. Later calls find the key by the id, whatever the folder is called now.
A move is undone by the reverse move of the same notes: `Journal` keeps them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kg_brain.base import validate
from kg_brain.base.clock import Clock
from kg_brain.base.errors import Conflict, InvalidInput, NotFound
from kg_brain.store import projects as statements
from kg_brain.store.db import Database
from kg_brain.store.projects import Holdings, ProjectNode, ProjectRow

MOVE_BATCH = 2000
SHORT_ID = 8


def candidates(id: str, name: str) -> list[str]:
    """The keys an identity may take, in order: its name, then its name with a short id."""
    short = id.split(":", 1)[-1][:SHORT_ID]
    return [name, f"{name[:64 - SHORT_ID - 1].rstrip('-._')}-{short}"]


@dataclass
class Journal:
    """What a change did, to undo it: the notes each move carried, the Project nodes before."""

    moves: list[dict[str, Any]] = field(default_factory=list)  # {source, target, zk_ids}
    nodes_before: list[ProjectNode] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {"moves": self.moves, "nodes_before": self.nodes_before}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Journal:
        if not isinstance(data, dict) or not isinstance(data.get("moves"), list):
            raise InvalidInput("not a kg-brain project journal")
        return cls(data["moves"], data.get("nodes_before", []))


class Projects:
    """Project keys of identities, and moves between keys."""

    def __init__(self, db: Database, clock: Clock) -> None:
        self.db = db
        self.clock = clock

    def claim(self, id: str, name: str, before: str | None = None) -> str:
        """The key `id` stands for, made on its first sight (see the module docstring)."""
        found = statements.find_project(self.db, id=id)
        if found is not None:
            return found["key"]
        if before:
            adopted = self.db.write_tx(
                lambda tx: statements.adopt_project(tx, id=id, before=before))
            if adopted is not None:
                return adopted["key"]
        name = validate.project(name)
        for key in candidates(id, name):
            try:
                return self._create(id, key, name)
            except Conflict:  # another identity took the key meanwhile
                continue
        raise Conflict(f"no free project key for {name!r} ({id}); name the project explicitly")

    def _create(self, id: str, key: str, name: str) -> str:
        return self.db.write_tx(lambda tx: statements.create_project(
            tx, id=id, key=key, name=name, now=self.clock())["key"])

    def bind(self, id: str, name: str, key: str) -> str:
        """`id` filed under `key` from now on (the notes under `key` become its)."""
        key = validate.project(key)
        return self.db.write_tx(lambda tx: statements.bind_project(
            tx, id=id, key=key, name=validate.project(name), now=self.clock())["key"])

    def listing(self) -> list[ProjectRow]:
        return statements.list_projects(self.db)

    def holdings(self, keys: list[str]) -> Holdings:
        """What the projects hold, to compare before and after a change."""
        return statements.project_counts(self.db, keys=keys)

    def snapshot(self) -> Journal:
        """A journal to record a change in, holding the Project nodes as they are."""
        return Journal(nodes_before=statements.project_nodes(self.db))

    def note_ids(self, project: str, matching: str | None = None) -> list[str]:
        rows = statements.project_note_ids(self.db, project=validate.project(project),
                                           matching=matching)
        return [r["zk_id"] for r in rows]

    def move(self, zk_ids: list[str], source: str, target: str, journal: Journal) -> int:
        """Move the notes in batches, each a transaction; the journal records each batch."""
        source, target = validate.project(source), validate.project(target)
        if source == target:
            raise InvalidInput(f"{source!r} is already the project of those notes")
        moved = 0
        for start in range(0, len(zk_ids), MOVE_BATCH):
            done = self._move(zk_ids[start:start + MOVE_BATCH], source, target)
            journal.moves.append({"source": source, "target": target, "zk_ids": done})
            moved += len(done)
        return moved

    def _move(self, zk_ids: list[str], source: str, target: str) -> list[str]:
        return self.db.write_tx(lambda tx: statements.move_notes(
            tx, zk_ids=zk_ids, source=source, target=target, now=self.clock()))["zk_ids"]

    def merge(self, source: str, target: str, journal: Journal) -> int:
        """Every note of `source` into `target`; the identities of `source` follow (a rename
        when `target` is new)."""
        ids = self.note_ids(source)
        known = {r["key"] for r in self.listing()}
        if source not in known:
            raise NotFound(f"no project {source!r}; `kg-brain project list` names them")
        moved = self.move(ids, source, target, journal) if ids else 0
        self.db.write_tx(lambda tx: statements.retarget_project(tx, source=source,
                                                                 target=target))
        return moved

    def undo(self, journal: Journal) -> int:
        """Every move of the journal in reverse, then the Project nodes as they were."""
        moved = 0
        for step in reversed(journal.moves):
            moved += self.move(step["zk_ids"], step["target"], step["source"], Journal())
        before = {n["id"] for n in journal.nodes_before}
        dropped = [n["id"] for n in statements.project_nodes(self.db) if n["id"] not in before]
        self.db.write_tx(lambda tx: statements.restore_project_nodes(
            tx, rows=journal.nodes_before, dropped=dropped, now=self.clock()))
        return moved
