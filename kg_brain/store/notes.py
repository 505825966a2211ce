"""Notes: ids, batched creation and full reads. Functions take an open transaction."""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from typing import Any, TypeVar

from kg_brain.db import Tx
from kg_brain.errors import Conflict, InvalidInput
from kg_brain.models import NoteView

T = TypeVar("T")
ZK_ID = re.compile(r"^ZK-[0-9A-F]{8}$")


def new_zk_id() -> str:
    return f"ZK-{secrets.token_hex(4).upper()}"


def check_zk_id(zk_id: str) -> str:
    """Accept any case, store upper case; reject anything not shaped like ZK-<8 hex>."""
    value = zk_id.strip().upper() if isinstance(zk_id, str) else ""
    if not ZK_ID.match(value):
        raise InvalidInput(f"malformed zk_id {zk_id!r}: expected ZK- followed by 8 hex digits")
    return value


def create_notes(tx: Tx, rows: list[dict[str, Any]]) -> list[str]:
    return [r["zk_id"] for r in tx.run("notes/create_notes", rows=rows)]


def get_notes(tx: Tx, zk_ids: list[str]) -> list[NoteView]:
    return [NoteView.from_row(r) for r in tx.run("notes/get_notes", zk_ids=zk_ids)]


def with_fresh_ids(write: Callable[[], T], rows: list[dict[str, Any]], tries: int = 3) -> T:
    """ZK ids are 32 random bits (the seed's format), so a collision happens about once per
    100k notes; the unique constraint refuses it and the write is retried with new ids.
    `write` must read the ids from `rows` when it runs."""
    for attempt in range(tries):
        try:
            return write()
        except Conflict:
            if attempt == tries - 1:
                raise
            for row in rows:
                row["zk_id"] = new_zk_id()
    raise AssertionError("unreachable")
