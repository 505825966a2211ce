"""The one gate every stored text passes: the parameters of each write statement, redacted
(or refused, SECRETS_MODE=reject) where the store runs it (kg_brain/store/db.py `Tx.run`).

Services redact what they write first, so their answers can name the kinds hidden; the gate is
what makes that a guarantee: a write path added later, a field nobody thought of (a link reason,
a tombstone's reason, an imported record's tags, a job's error) cannot reach the graph unread.
Every string under a write's parameters is read, in nested rows and maps too, except the
identifiers below: they are matched on, and `validate` only lets through ids shaped ZK-<8 hex>
and project names of letters, digits, '.', '_' and '-'. Vectors (lists of numbers) are skipped.
A search is a read, so its query never meets the gate (redacted, a query holding a secret would
search for other words, or for none: the full-text parser refuses the marker's brackets).

Each text is redacted once on its way in: `hide` answers a `Redacted` string, which the gate
passes as given (redaction is a pure function of the text, and reading its output again finds
no secret: at most a marker standing as a URL's password, which it would mark a second time);
a text built from one (sliced, joined, rewritten) is a plain string and is read again.
Short texts (a keyword, a tag, an entity's name) repeat across the notes of a write and of an
import, so their redaction is remembered (SHORT_TEXT, REMEMBERED).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Literal

from kg_brain.base.errors import InvalidInput
from kg_brain.text.redact import redact

Mode = Literal["redact", "reject"]
IDENTIFIERS = frozenset({"zk_id", "zk_ids", "src", "dst", "project", "merged", "originals"})
SHORT_TEXT = 200  # characters: a text this long or shorter has its redaction remembered
REMEMBERED = 1 << 16  # short texts remembered, the least recently used forgotten first


class Redacted(str):
    """A text as redaction answered it: the gate lets it through unread."""

    __slots__ = ()


def hide(text: str, mode: Mode) -> tuple[str, list[str]]:
    """The text with its secrets hidden and the kinds found; in reject mode, a refusal that
    names the kinds (never the values)."""
    if isinstance(text, Redacted):
        return text, []
    cleaned, kinds = _short(text) if len(text) <= SHORT_TEXT else _redacted(text)
    if kinds and mode == "reject":
        raise InvalidInput(f"the text contains secrets ({', '.join(sorted(set(kinds)))}); "
                           "remove them and try again (SECRETS_MODE=reject)")
    return cleaned, list(kinds)


def _redacted(text: str) -> tuple[Redacted, tuple[str, ...]]:
    cleaned, found = redact(text)
    return Redacted(cleaned), tuple(found)


_short = lru_cache(maxsize=REMEMBERED)(_redacted)


def gate(params: dict[str, Any], mode: Mode) -> tuple[dict[str, Any], list[str]]:
    """A write's parameters with every text value through `hide`, and the kinds found."""
    found: list[str] = []
    sent = _mapping(params, mode, found)
    return sent, list(dict.fromkeys(found))


def _mapping(values: dict[str, Any], mode: Mode, found: list[str]) -> dict[str, Any]:
    return {k: v if k in IDENTIFIERS else _value(v, mode, found) for k, v in values.items()}


def _value(value: Any, mode: Mode, found: list[str]) -> Any:
    if isinstance(value, str):
        cleaned, kinds = hide(value, mode)
        found.extend(kinds)
        return cleaned
    if isinstance(value, dict):
        return _mapping(value, mode, found)
    if isinstance(value, (list, tuple)):
        if value and isinstance(value[0], (int, float)):
            return value  # a vector or a list of numbers: no text in it
        return [_value(v, mode, found) for v in value]
    return value
