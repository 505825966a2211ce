"""Notes: ids, batched creation and full reads. Functions take an open transaction."""

from __future__ import annotations

import re
import secrets
from typing import Any

from kg_brain.db import Tx
from kg_brain.errors import InvalidInput
from kg_brain.models import NoteView

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
