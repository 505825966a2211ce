"""Entities: what notes are about, one node per canonical key and project, with MENTIONS from
the notes and a count of the live notes mentioning each (the weight of rare things)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypedDict

from kg_brain.store.statement import On, write


class Mentions(TypedDict):
    zk_id: str
    mentions: int


class Mentioned(TypedDict):
    mentions: int


class Shifted(TypedDict):
    entities: int


@write("entities/replace_mentions.cypher")
def replace_mentions(on: On, *, rows: list[dict[str, Any]], now: datetime) -> list[Mentions]:
    """Rows of {zk_id, entities: [{key, name, kind}]}: each note's MENTIONS become these."""


@write("entities/mention_new.cypher")
def mention_new(on: On, *, entities: list[dict[str, Any]], now: datetime) -> Mentioned:
    """Entities of {project, key, name, kind, zk_ids, live}, sorted by project and key: the new
    notes zk_ids (live of them not archived) each MENTIONS it, one merge for the batch."""


def mentioned_by(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """New note rows' entities (row["entities"]), one per project and key in the order
    mention_new takes them, named by their first mention in row order."""
    merged: dict[tuple[str, str], dict[str, Any]] = {}
    for row in rows:
        live = int(row["memory_type"] != "archived")
        for ent in row.get("entities") or ():
            entity = merged.setdefault((row["project"], ent["key"]), {
                "project": row["project"], "key": ent["key"], "name": ent["name"],
                "kind": ent["kind"], "zk_ids": [], "live": 0})
            if entity["zk_ids"][-1:] != [row["zk_id"]]:  # a key the row names twice
                entity["zk_ids"].append(row["zk_id"])
                entity["live"] += live
    return [merged[k] for k in sorted(merged)]


@write("entities/shift_counts.cypher")
def shift_counts(on: On, *, zk_ids: list[str], delta: int) -> Shifted:
    """Live-note counts after notes were archived (-1) or brought back (+1)."""
