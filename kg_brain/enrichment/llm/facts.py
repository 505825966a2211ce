"""The values a note states, by slot: ports, versions, dates, settings and quantities.

Two notes about one subject that give one slot different values ("listens on 8001" / "now
listens on 8002", "Alembic 1.13" / "Alembic 1.14", "timeout of 30s" / "timeout of 60s") state
different facts: dedup must keep both, and the newer one supersedes the older.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from kg_brain.enrichment.llm.finders import Hit
from kg_brain.enrichment.llm.types import EntityKind

_UNITS: dict[str, tuple[str, float]] = {
    **dict.fromkeys(["ms", "msec", "millisecond", "milliseconds"], ("duration", 0.001)),
    **dict.fromkeys(["s", "sec", "secs", "second", "seconds"], ("duration", 1.0)),
    **dict.fromkeys(["m", "min", "mins", "minute", "minutes"], ("duration", 60.0)),
    **dict.fromkeys(["h", "hr", "hrs", "hour", "hours"], ("duration", 3600.0)),
    **dict.fromkeys(["d", "day", "days"], ("duration", 86400.0)),
    **dict.fromkeys(["w", "wk", "week", "weeks"], ("duration", 604800.0)),
    **dict.fromkeys(["kb", "kib"], ("size", 1 / 1024)),
    **dict.fromkeys(["mb", "mib"], ("size", 1.0)),
    **dict.fromkeys(["gb", "gib"], ("size", 1024.0)),
    **dict.fromkeys(["%", "percent"], ("%", 1.0)),
    "k": ("number", 1000.0),
}
# A number and its unit; a colon or dot before a digit goes on with it ("04:30", "1.5"), one
# before a space ends a clause ("down to 8: at 32 it starved").
_QUANTITY = re.compile(r"(?<![\w.:/-])(\d+(?:\.\d+)?)\s*(%|[a-z]+)?(?![\w/-]|[.:]\w)", re.I)
_ASSIGN = re.compile(r"(?<![\w.$-])([A-Za-z][\w.-]*\w)\s*(?:=|:|\b(?:set )?to\b|\bis now\b|"
                     r"\bis\b)\s*([\w.:/-]+)")
_ADDRESS = re.compile(r"^(?:localhost|\d{1,3}(?:\.\d{1,3}){3})$")
_REGION = re.compile(r"\b(?:us|eu|ap|sa|ca|me|af)-(?:north|south|east|west|central|northeast|"
                     r"southeast|northwest|southwest)-\d\b|\b(?:europe|us|asia)-[a-z]+\d\b")
_NAMED_REVISION = re.compile(r"\b([a-z][a-z0-9]*(?:[-_][a-z][a-z0-9]*)*)[-_]v(\d+)\b")
# A branch is named by a plain word ("the develop branch"); other named things by a token no
# sentence word looks like ("the fieldkit-media bucket", "topic billing.events").
_BRANCH = re.compile(r"\b([a-z][\w./-]*)\s+branch\b|\bbranch\s+([a-z][\w./-]*[\w])", re.I)
_NAMED = re.compile(r"\b([a-z][a-z0-9]*(?:[-_.][a-z0-9]+)+)\s+(bucket|topic|queue|namespace|"
                    r"database|schema|workspace|cluster|image|channel)\b|\b(bucket|topic|queue|"
                    r"namespace|database|schema|workspace|cluster|image|channel)\s+"
                    r"([a-z][a-z0-9]*(?:[-_.][a-z0-9]+)+)\b", re.I)
_GENERIC_BRANCH = frozenset("the a an this that same new old feature release each every "
                            "default current other one".split())
_TIME = re.compile(r"\b(\d{1,2}:\d{2})(?::\d{2})?\s*(am|pm)?\b", re.I)


@dataclass(frozen=True)
class Facts:
    values: dict[str, frozenset[str]]


def facts_of(text: str, hits: Iterable[Hit]) -> Facts:
    """Slot -> values stated in the text; hits are its entities (ports, versions, dates)."""
    values: dict[str, set[str]] = {}

    def add(slot: str, value: str) -> None:
        values.setdefault(slot, set()).add(value)

    taken: list[tuple[int, int]] = []
    for h in hits:
        if h.kind == EntityKind.PORT:
            add("port", h.key)
        elif h.kind == EntityKind.VERSION:
            owner, _, version = h.key.rpartition(" ")
            add(owner or "version", version)
        elif h.kind == EntityKind.DATE:
            add("date", h.key)
        elif h.kind == EntityKind.HOST and is_address(h.key):
            add("address", h.key)
        else:
            continue
        taken.append((h.start, h.end))
    for m in _ASSIGN.finditer(text):
        if ("_" in m.group(1) or "." in m.group(1) or m.group(1).isupper()) and not _inside(
                m.start(2), taken):
            add(m.group(1).lower(), m.group(2).lower().rstrip(".,"))
            taken.append((m.start(), m.end()))
    for m in _REGION.finditer(text):
        add("region", m.group(0))
        taken.append((m.start(), m.end()))
    for m in _NAMED_REVISION.finditer(text):
        add(m.group(1), m.group(2))
        taken.append((m.start(), m.end()))
    for m in _BRANCH.finditer(text):
        name = (m.group(1) or m.group(2)).lower()
        if name not in _GENERIC_BRANCH:
            add("branch", name)
    for m in _NAMED.finditer(text):
        noun, name = (m.group(2), m.group(1)) if m.group(1) else (m.group(3), m.group(4))
        add(noun.lower(), name.lower())
        taken.append((m.start(), m.end()))
    for m in _TIME.finditer(text):
        if not _inside(m.start(), taken):
            add("time", m.group(1) + (m.group(2) or "").lower())
            taken.append((m.start(), m.end()))
    for m in _QUANTITY.finditer(text):
        if not _inside(m.start(), taken):
            add(*_quantity(m))
    return Facts({slot: frozenset(v) for slot, v in values.items()})


def is_address(host: str) -> bool:
    """An IP literal or localhost: where something binds or points, a value, not a subject."""
    return bool(_ADDRESS.match(host))


def is_region(token: str) -> bool:
    """A cloud region or zone ("eu-west-1", "eu-west-1b", "europe-west3"): a value where
    something runs."""
    return bool(_REGION.fullmatch(token) or token[-1:].isalpha() and _REGION.fullmatch(token[:-1]))


def _inside(pos: int, spans: list[tuple[int, int]]) -> bool:
    return any(s <= pos < e for s, e in spans)


def _quantity(m: re.Match[str]) -> tuple[str, str]:
    """The slot a number fills: its unit's class (a duration, a size, a share) or a plain
    number; seconds, minutes and hours compare as one duration."""
    number, unit = float(m.group(1)), (m.group(2) or "").lower()
    if unit in _UNITS:
        cls, scale = _UNITS[unit]
        return cls, f"{number * scale:g}"
    return "number", f"{number:g}"
