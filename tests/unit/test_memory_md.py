"""MEMORY.md rows: score steps, next decay dates, ordering and the 200-line / 25 KB cap."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from kg_brain.domain.lifecycle import decay_score
from kg_brain.views.memory_md import (
    MAX_BYTES,
    MAX_LINES,
    Row,
    build_rows,
    next_step_day,
    parse,
    render,
    step,
)

NOW = datetime(2026, 5, 1, 12, tzinfo=UTC)


def _note(zk: str, kind: str = "general", idle: int = 0, access: int = 0, pinned: bool = False,
          content: str = "a memory") -> dict[str, object]:
    return {"zk_id": zk, "title": content[:40], "content": content, "note_kind": kind,
            "pinned": pinned, "access_count": access, "anchor": NOW - timedelta(days=idle),
            "inbound": 0}


def test_scores_step_down_on_the_day_given() -> None:
    for idle, access in [(0, 0), (10, 3), (40, 1), (5, 25)]:
        score = step(decay_score(idle, access, 0))
        days = next_step_day(idle, access, 0, score)
        if score > 1:
            assert step(decay_score(idle + days, access, 0)) < score
            assert step(decay_score(idle + days - 1, access, 0)) == score
        else:
            assert days == 0


def test_pinned_then_decisions_patterns_fixes_lead() -> None:
    rows = build_rows([_note("ZK-00000001", access=30), _note("ZK-00000002", "decision", idle=60),
                       _note("ZK-00000003", "pattern", pinned=True, idle=200)], NOW)
    assert [r.ref for r in rows] == ["ZK-00000003", "ZK-00000002", "ZK-00000001"]
    assert rows[0].score == 5 and rows[0].due > NOW.date()


def test_rows_round_trip_through_the_text_format() -> None:
    rows = [Row(3, date(2026, 5, 14), "Keep answers terse.", "ZK-0000ABCD"),
            Row(2, date(2026, 5, 1), "Run bun typecheck from the package directory.", None)]
    parsed, other = parse("# Memory\n\n" + render(rows) + "not a row\n")
    assert parsed == rows and other == 1
    first = render(rows).splitlines()[0]
    assert first == "- (3) [d:2026-05-14] Keep answers terse. [ref:ZK-0000ABCD]"


def test_view_is_capped_at_200_lines_and_25_kb() -> None:
    many = [Row(3, date(2026, 5, 1), f"memory {i}", None) for i in range(500)]
    assert len(render(many).splitlines()) == MAX_LINES
    wide = [Row(3, date(2026, 5, 1), "x" * 230, None) for i in range(150)]
    text = render(wide)
    assert len(text.encode("utf-8")) <= MAX_BYTES and len(text.splitlines()) < 150


def test_long_content_is_shown_by_its_title_on_one_line() -> None:
    row = build_rows([_note("ZK-00000009", content="First claim.\n" + "detail " * 80)], NOW)[0]
    assert "\n" not in row.text and len(row.text) <= 240
