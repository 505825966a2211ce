"""Projects: workspace identities and the keys notes are filed under
(kg_brain/domain/projects.py)."""

from __future__ import annotations

from datetime import datetime
from typing import TypedDict

from kg_brain.store.statement import On, read, write


class Key(TypedDict):
    key: str


class Found(TypedDict):
    key: str
    name: str | None


class ProjectRow(TypedDict):
    key: str
    name: str | None
    id: str | None
    former_ids: list[str]
    notes: int
    forgotten: int


class ProjectNode(TypedDict):
    id: str
    key: str
    name: str | None
    former_ids: list[str]


class NoteId(TypedDict):
    zk_id: str


class Moved(TypedDict):
    zk_ids: list[str]


class Holdings(TypedDict):
    notes: int
    forgotten: int
    links: int
    revisions: int
    mentions: int


class Projects(TypedDict):
    projects: int


@read("projects/find_project.cypher")
def find_project(on: On, *, id: str) -> Found | None:
    """The key an identity stands for, if it has one."""


@write("projects/adopt_project.cypher")
def adopt_project(on: On, *, id: str, before: str) -> Key | None:
    """The project of the identity a repository had before its first commit, now its own."""


@write("projects/create_project.cypher")
def create_project(on: On, *, id: str, key: str, name: str, now: datetime) -> Key:
    """A new identity's project (the key constraint refuses a taken key)."""


@write("projects/bind_project.cypher")
def bind_project(on: On, *, id: str, key: str, name: str, now: datetime) -> Key:
    """An identity filed under `key` from now on."""


@read("projects/list_projects.cypher")
def list_projects(on: On) -> list[ProjectRow]:
    """Every project key with its identity and counts."""


@read("projects/project_note_ids.cypher")
def project_note_ids(on: On, *, project: str, matching: str | None) -> list[NoteId]:
    """A project's note ids (forgotten included), optionally those holding a text."""


@write("projects/move_notes.cypher", "zk_ids")
def move_notes(on: On, *, zk_ids: list[str], source: str, target: str,
               now: datetime) -> Moved:
    """Notes from one project to another, with their entities and jobs."""


@read("projects/project_nodes.cypher")
def project_nodes(on: On) -> list[ProjectNode]:
    """Every Project node, for a journal."""


@write("projects/restore_project_nodes.cypher")
def restore_project_nodes(on: On, *, rows: list[ProjectNode], dropped: list[str],
                          now: datetime) -> Projects:
    """Project nodes as a journal kept them."""


@write("projects/retarget_project.cypher")
def retarget_project(on: On, *, source: str, target: str) -> Projects:
    """The identities of `source` filed under `target`."""


@read("projects/project_counts.cypher")
def project_counts(on: On, *, keys: list[str]) -> Holdings:
    """What the projects hold: notes, tombstones, links, revisions, mentions."""
