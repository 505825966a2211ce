"""Input checks shared by every domain operation: refuse bad input before anything is written."""

from __future__ import annotations

import re
from enum import StrEnum
from typing import TypeVar

from kg_brain.base.errors import InvalidInput
from kg_brain.base.vocab import MemoryType, NoteKind

PROJECT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
ZK_ID = re.compile(r"^ZK-[0-9A-F]{8}$")
SESSION_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$")
E = TypeVar("E", bound=StrEnum)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def project(value: str) -> str:
    if not isinstance(value, str) or not PROJECT.match(value.strip()):
        raise InvalidInput(
            f"invalid project {value!r}: use 1-64 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit"
        )
    return value.strip()


def zk_id(value: str) -> str:
    """Accept any case, store upper case; reject anything not shaped like ZK-<8 hex>."""
    cleaned = value.strip().upper() if isinstance(value, str) else ""
    if not ZK_ID.match(cleaned):
        raise InvalidInput(f"malformed zk_id {value!r}: expected ZK- followed by 8 hex digits")
    return cleaned


def session_id(value: object) -> str | None:
    """A client session's id as the client names it (the session order joins the notes one
    session writes); None or blank: the call names no session."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str) or not SESSION_ID.match(value.strip()):
        raise InvalidInput(f"invalid session id {str(value)[:60]!r}: use 1-128 letters, digits, "
                           "'_', '.', ':' or '-', starting with a letter or digit")
    return value.strip()


def content(value: str, limit: int, what: str = "content") -> str:
    """Text without control characters; a lone surrogate (JSON allows one, no encoding can
    send it to the embedder or the database) becomes '?'."""
    if not isinstance(value, str):
        raise InvalidInput(f"{what} must be text")
    cleaned = _CONTROL.sub("", value).encode("utf-8", "replace").decode("utf-8").strip()
    if not cleaned:
        raise InvalidInput(f"{what} is empty")
    if len(cleaned) > limit:
        raise InvalidInput(f"{what} is {len(cleaned)} characters; the limit is {limit}")
    return cleaned


def choice(enum: type[E], value: str, what: str) -> E:
    try:
        return enum(value)
    except ValueError:
        allowed = ", ".join(m.value for m in enum)
        raise InvalidInput(f"unknown {what} {value!r}; allowed: {allowed}") from None


def note_kind(value: str) -> NoteKind:
    return choice(NoteKind, value, "note_kind")


def memory_type(value: str) -> MemoryType:
    return choice(MemoryType, value, "memory_type")


def bounded(value: int, low: int, high: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidInput(f"{what} must be an integer from {low} to {high}")
    return value
