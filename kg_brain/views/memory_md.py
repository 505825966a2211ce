"""The repo-local MEMORY.md view: `- (score) [d:YYYY-MM-DD] text [ref:ZK-XXXXXXXX]`.

The score (1-5) is the note's decay score (lifecycle.decay_score, 0..1) in fifths, rounded up;
`[d:]` is the day the score next drops a step if the note stays idle (today when it is already
at 1, a year out for pinned notes, which never decay). Pinned notes and decisions, patterns and
fixes come first; the file is capped at 200 lines and 25 KB, like the plugin's injected view.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from kg_brain.base import validate
from kg_brain.base.errors import InvalidInput
from kg_brain.base.validate import ZK_ID
from kg_brain.base.vocab import NoteKind
from kg_brain.domain.lifecycle import decay_score
from kg_brain.domain.memory.write import Writer
from kg_brain.store import notes, views
from kg_brain.store.db import Database

MAX_LINES = 200
MAX_BYTES = 25 * 1024
MAX_TEXT = 240
PINNED_HORIZON_DAYS = 365
HORIZON_DAYS = 3650
LEADING_KINDS = (NoteKind.DECISION.value, NoteKind.PATTERN.value, NoteKind.FIX.value)
ROW = re.compile(r"^- \(([1-5])\) \[d:(\d{4}-\d{2}-\d{2})\] (.+?)(?: \[ref:([^\]\s]+)\])?\s*$")


@dataclass(frozen=True)
class Row:
    score: int
    due: date
    text: str
    ref: str | None

    def line(self) -> str:
        ref = f" [ref:{self.ref}]" if self.ref else ""
        return f"- ({self.score}) [d:{self.due.isoformat()}] {self.text}{ref}"


def step(decay: float) -> int:
    """Decay score 0..1 -> 1..5."""
    return min(5, max(1, math.ceil(decay * 5 - 1e-9)))


def next_step_day(days_idle: float, access: int, inbound: int, score: int) -> int:
    """Days from now until the score falls below `score` (binary search: decay is monotone)."""
    if score <= 1:
        return 0
    low, high = 0, HORIZON_DAYS
    if step(decay_score(days_idle + high, access, inbound)) >= score:
        return HORIZON_DAYS
    while high - low > 1:
        mid = (low + high) // 2
        if step(decay_score(days_idle + mid, access, inbound)) < score:
            high = mid
        else:
            low = mid
    return high


def _text(note: dict[str, Any]) -> str:
    """One line: the content when it is short, else the note's title (its one claim)."""
    content = " ".join(str(note["content"]).split())
    text = content if len(content) <= MAX_TEXT else " ".join(str(note["title"] or "").split())
    text = text or content[:MAX_TEXT - 1] + "…"
    return text.replace("[ref:", "[ref ")


def build_rows(notes: list[dict[str, Any]], now: datetime) -> list[Row]:
    ranked = []
    for n in notes:
        anchor = n["anchor"].to_native() if hasattr(n["anchor"], "to_native") else n["anchor"]
        idle = max(0.0, (now - anchor).total_seconds() / 86400) if anchor else 0.0
        decay = decay_score(idle, int(n["access_count"]), int(n["inbound"]))
        score = 5 if n["pinned"] else step(decay)
        days = PINNED_HORIZON_DAYS if n["pinned"] else next_step_day(
            idle, int(n["access_count"]), int(n["inbound"]), score)
        row = Row(score, (now + timedelta(days=days)).date(), _text(n), n["zk_id"])
        key = (not n["pinned"], n["note_kind"] not in LEADING_KINDS, -decay, n["zk_id"])
        ranked.append((key, row))
    return [row for _, row in sorted(ranked, key=lambda kr: kr[0])]


def render(rows: list[Row]) -> str:
    """Rows in order until 200 lines or 25 KB (UTF-8, newlines included) would be exceeded."""
    lines: list[str] = []
    size = 0
    for row in rows[:MAX_LINES]:
        line = row.line() + "\n"
        size += len(line.encode("utf-8"))
        if size > MAX_BYTES:
            break
        lines.append(line)
    return "".join(lines)


def export_memory_md(db: Database, project: str, now: datetime) -> str:
    rows = views.memory_md_notes(db, project=validate.project(project))
    return render(build_rows(rows, now))


def parse(text: str) -> tuple[list[Row], int]:
    """Rows of a MEMORY.md file, and how many non-blank lines were not rows."""
    rows, other = [], 0
    for line in text.splitlines():
        match = ROW.match(line.strip())
        if match:
            score, due, body, ref = match.groups()
            rows.append(Row(int(score), date.fromisoformat(due), body.strip(), ref))
        elif line.strip() and not line.lstrip().startswith("#"):
            other += 1
    return rows, other


@dataclass
class ImportReport:
    added: list[str]
    deduplicated: list[str]
    known: list[str]  # rows whose [ref:] names a note already in the graph
    ignored_lines: int


def import_memory_md(writer: Writer, text: str, project: str) -> ImportReport:
    """Each row not already in the graph goes through the full add pipeline (dedup, links)."""
    rows, ignored = parse(text)
    if not rows and ignored:
        raise InvalidInput("no `- (score) [d:YYYY-MM-DD] text` rows found")
    refs = [r.ref.upper() for r in rows if r.ref and ZK_ID.match(r.ref.upper())]
    found = notes.get_notes(writer.db, zk_ids=refs) if refs else []
    existing = {r["note"]["zk_id"] for r in found}
    report = ImportReport([], [], [], ignored)
    for row in rows:
        if row.ref and row.ref.upper() in existing:
            report.known.append(row.ref.upper())
            continue
        result = writer.add(row.text, project)
        target = report.deduplicated if result.deduplicated else report.added
        target.append(result.note.zk_id)
    return report
