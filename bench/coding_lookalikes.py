"""Look-alike notes of a coding project: notes of the same shapes and words as its real ones,
about other services, files, values and people, drawn from its templates and vocabulary by a
seeded generator (the same project, count and seed give the same notes); the schedule that
interleaves them, in sessions of their own, with the real sessions; and the dates of the writes."""

from __future__ import annotations

import itertools
import json
import random
import re
from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from bench.coding_data import (
    LOOKALIKE_PREFIX,
    SESSION_FIELDS,
    CodingProject,
    Step,
    blocks,
    step_of,
)
from kg_brain.base.errors import InvalidInput

_SLOT = re.compile(r"\{([a-z_]+)(?::(\d))?\}")
_MAX_NESTING = 3
_MAX_TRIES = 200
LOOKALIKE_SESSION = (2, 8)  # look-alike groups per session of their own
WITHIN_SESSION = (timedelta(minutes=2), timedelta(minutes=12))  # from one write to the next
BETWEEN_SESSIONS = (timedelta(hours=3), timedelta(days=3))  # from a session's last write


# --- look-alikes ------------------------------------------------------------------------------
def lookalikes(project: CodingProject, count: int, seed: int) -> list[list[Step]]:
    """At least `count` look-alike notes in groups that are written together (a failure and its
    fix); the same project, count and seed give the same notes."""
    groups: list[list[Step]] = []
    notes = 0
    draws = _draws(project, seed)
    while notes < count:
        group = next(draws)
        groups.append(group)
        notes += sum(len(s.stored_keys()) for s in group)
    return groups


def drawable(project: CodingProject, seed: int, cap: int) -> tuple[int, str | None]:
    """How many distinct look-alike notes the templates yield (up to `cap`), and why no more."""
    notes = 0
    try:
        for group in _draws(project, seed):
            notes += sum(len(s.stored_keys()) for s in group)
            if notes >= cap:
                return notes, None
    except InvalidInput as exc:
        return notes, str(exc)
    raise AssertionError("unreachable: draws are endless")


def _draws(project: CodingProject, seed: int) -> Iterator[list[Step]]:
    rng = random.Random(f"{seed}/{project.name}")
    taken = {s.content for s in project.notes}
    for number in itertools.count():
        yield _unique_group(project, rng, taken, number)


def _unique_group(project: CodingProject, rng: random.Random, taken: set[str],
                  number: int) -> list[Step]:
    for _ in range(_MAX_TRIES):
        template = rng.choice(project.templates)
        group = _render_group(template, project.vocabulary, rng, f"{LOOKALIKE_PREFIX}{number}")
        texts = {s.content or json.dumps(s.handoff, sort_keys=True) for s in group}
        if len(texts) == len(group) and not texts & taken:
            taken.update(texts)
            return group
    raise InvalidInput(f"{project.name}: templates too few to draw distinct look-alikes")


def _render_group(template: dict[str, Any], vocabulary: dict[str, Any], rng: random.Random,
                  key: str) -> list[Step]:
    picks: dict[tuple[str, str], str] = {}

    def fill(text: str) -> str:
        return render(text, vocabulary, picks, rng)

    raw: dict[str, Any] = {"key": key, "tool": template["tool"],
                           "note_kind": template.get("note_kind")}
    if template["tool"] == "close_session":
        for name in SESSION_FIELDS:
            value = template.get(name) or ([] if name != "objective" else "")
            raw[name] = fill(value) if isinstance(value, str) else [fill(v) for v in value]
    else:
        raw["content"] = fill(template["content"])
        if template.get("failure_signature"):
            raw["failure_signature"] = fill(template["failure_signature"])
    group = [step_of(raw, real=False)]
    if template["tool"] == "record_failure" and template.get("fix"):
        group.append(step_of({"key": key + ".fix", "tool": "record_resolution", "failure": key,
                            "content": fill(template["fix"])}, real=False))
    return group


def render(text: str, vocabulary: dict[str, Any], picks: dict[tuple[str, str], str],
           rng: random.Random) -> str:
    """Fill `{slot}` and `{slot:2}` from the vocabulary: a slot keeps its value within one note
    (and its fix), `{slot:2}` draws a different value; values may hold slots themselves."""
    for _ in range(_MAX_NESTING):
        if not _SLOT.search(text):
            return text
        text = _SLOT.sub(lambda m: _pick(m.group(1), m.group(2) or "1", vocabulary, picks, rng),
                         text)
    if _SLOT.search(text):
        raise InvalidInput(f"slots nested too deep in {text!r}")
    return text


def _pick(name: str, instance: str, vocabulary: dict[str, Any],
          picks: dict[tuple[str, str], str], rng: random.Random) -> str:
    if (name, instance) in picks:
        return picks[(name, instance)]
    if name not in vocabulary:
        raise InvalidInput(f"no vocabulary for slot {{{name}}}")
    used = {v for (n, _), v in picks.items() if n == name}
    source = vocabulary[name]
    for _ in range(_MAX_TRIES):
        if isinstance(source, dict):
            low, high = source["range"]
            value = str(rng.randint(int(low), int(high)))
        else:
            value = str(rng.choice(source))
        if value not in used:
            picks[(name, instance)] = value
            return value
    raise InvalidInput(f"vocabulary {name!r} has too few distinct values")


def schedule(real: list[Step], groups: list[list[Step]], seed: int) -> list[Step]:
    """The real notes in their order with the look-alike groups in sessions of their own (a
    seeded 2-8 groups each, labelled "~s<n>"), each session at a seeded random point between
    the real sessions (before the first, between any two, or after the last; never inside one)."""
    rng = random.Random(f"{seed}/schedule")
    real_sessions = blocks(real)
    slots: list[list[Step]] = [[] for _ in range(len(real_sessions) + 1)]
    for session in _sessions_of(groups, rng):
        slots[rng.randint(0, len(real_sessions))].extend(session)
    merged: list[Step] = list(slots[0])
    for session, after in zip(real_sessions, slots[1:], strict=True):
        merged += session + after
    return merged


def _sessions_of(groups: list[list[Step]], rng: random.Random) -> list[list[Step]]:
    sessions: list[list[Step]] = []
    start = 0
    while start < len(groups):
        end = start + rng.randint(*LOOKALIKE_SESSION)
        label = f"{LOOKALIKE_PREFIX}s{len(sessions)}"
        sessions.append([replace(s, session=label) for g in groups[start:end] for s in g])
        start = end
    return sessions


def dates(steps: list[Step], start: datetime, seed: int) -> list[datetime]:
    """When each step is written: the first at `start`, then a seeded 2-12 minutes after the
    previous write within a session (or two sessions at once), 3 hours to 3 days after it where
    a session begins."""
    rng = random.Random(f"{seed}/dates")
    out: list[datetime] = []
    for session in blocks(steps):
        for number in range(len(session)):
            low, high = WITHIN_SESSION if number else BETWEEN_SESSIONS
            out.append(out[-1] + timedelta(seconds=rng.randint(int(low.total_seconds()),
                                                               int(high.total_seconds())))
                       if out else start)
    return out
