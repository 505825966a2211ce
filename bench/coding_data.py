"""The coding-agent benchmark's data: fictional projects whose notes an agent wrote while working,
the questions a developer later asks, and the look-alike notes generated around them.

A project file (`data/coding/<split>/<name>.json`) lists its real notes in the order they were
written, each with the tool that wrote it (`add_memory`, `record_failure`, `record_resolution` of an
earlier failure, `close_session`), its questions with the keys of the notes that answer them,
and templates plus vocabulary for look-alikes: notes of the same shapes and words about other
services, files, values and people. Look-alikes are drawn from a seeded generator, so a run is
reproducible, and are interleaved with the real notes in time, as a real memory would be.

Splits: `tune` holds the projects defaults are chosen on; `check` holds projects written fresh
afterwards and never looked at while tuning, whose figures are the reported result. A project may
also list `absent` questions: about things it never stored, which a search should answer with
nothing (the relevance floor).
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from kg_brain.errors import InvalidInput

DATA_DIR = Path(__file__).with_name("data") / "coding"
SPLITS = ("tune", "check")
Tool = Literal["add_memory", "record_failure", "record_resolution", "close_session"]
TOOLS = ("add_memory", "record_failure", "record_resolution", "close_session")
QUESTION_TYPES = ("symptom_fix", "multi_note", "current_value", "decision", "lookup")
SESSION_FIELDS = ("objective", "completed", "blockers", "next_steps", "key_files")
THREAD_SUFFIX = ".thread"  # close_session writes a summary (its key) and an open thread
LOOKALIKE_PREFIX = "~"
_SLOT = re.compile(r"\{([a-z_]+)(?::(\d))?\}")
_MAX_NESTING = 3
_MAX_TRIES = 200


@dataclass(frozen=True)
class Step:
    """One write an agent made, through the tool named."""

    key: str
    tool: Tool
    content: str = ""
    note_kind: str = "general"
    failure_signature: str | None = None
    failure: str | None = None  # record_resolution: key of the failure it fixes
    session: dict[str, Any] = field(default_factory=dict)  # close_session: its arguments
    real: bool = True

    def stored_keys(self) -> list[str]:
        return [self.key, self.key + THREAD_SUFFIX] if self.tool == "close_session" else [self.key]


@dataclass(frozen=True)
class Question:
    text: str
    type: str
    expected: list[str]
    outdated: list[str] = field(default_factory=list)
    contextual: bool = False  # asks about session notes, which searches skip by default


@dataclass
class CodingProject:
    name: str
    description: str
    start: str
    notes: list[Step]
    questions: list[Question]
    vocabulary: dict[str, Any]
    templates: list[dict[str, Any]]
    absent: list[str] = field(default_factory=list)  # questions about nothing it stored


def load_project(path: Path) -> CodingProject:
    data = json.loads(path.read_text(encoding="utf-8"))
    try:
        project = CodingProject(
            name=data["name"], description=data.get("description", ""), start=data["start"],
            notes=[_step(n) for n in data["notes"]],
            questions=[Question(q["text"], q["type"], list(q["expected"]),
                                list(q.get("outdated") or []), bool(q.get("contextual")))
                       for q in data["questions"]],
            vocabulary=data["lookalikes"]["vocabulary"],
            templates=data["lookalikes"]["templates"],
            absent=[str(q) for q in data.get("absent") or []])
    except (KeyError, TypeError) as exc:
        raise InvalidInput(f"{path}: malformed coding project ({exc})") from exc
    found = problems(project)
    if found:
        raise InvalidInput(f"{path}: " + "; ".join(found))
    return project


def shipped_projects(names: list[str] | None = None,
                     split: str | None = None) -> list[CodingProject]:
    """The projects shipped with the package, by file name, of one split (`tune`, `check`) or
    of both, optionally only those named."""
    if split is not None and split not in SPLITS:
        raise InvalidInput(f"unknown split {split!r}; known: {', '.join(SPLITS)}")
    paths = sorted(p for s in ([split] if split else SPLITS) for p in (DATA_DIR / s).glob("*.json"))
    chosen = [p for p in paths if names is None or p.stem in names]
    missing = set(names or []) - {p.stem for p in chosen}
    if missing:
        raise InvalidInput(f"no coding project named {', '.join(sorted(missing))}; "
                           f"known: {', '.join(p.stem for p in paths)}")
    return [load_project(p) for p in chosen]


def _step(raw: dict[str, Any], real: bool = True) -> Step:
    tool = raw["tool"]
    if tool not in TOOLS:
        raise InvalidInput(f"note {raw.get('key')!r}: unknown tool {tool!r}")
    session = {f: raw.get(f) or ([] if f != "objective" else "") for f in SESSION_FIELDS} \
        if tool == "close_session" else {}
    return Step(key=raw["key"], tool=tool, content=raw.get("content", ""),
                note_kind=raw.get("note_kind") or "general",
                failure_signature=raw.get("failure_signature"), failure=raw.get("failure"),
                session=session, real=real)


def problems(project: CodingProject) -> list[str]:
    """What makes the data unusable: unknown or duplicate keys, a resolution of no earlier
    failure, an expected note that searches cannot return, an outdated note that is not older."""
    found: list[str] = []
    order: dict[str, int] = {}
    tools: dict[str, str] = {}
    resolved = {s.failure for s in project.notes if s.tool == "record_resolution"}
    for number, step in enumerate(project.notes):
        if step.key.startswith(LOOKALIKE_PREFIX):
            found.append(f"{step.key}: real keys may not start with {LOOKALIKE_PREFIX!r}")
        for key in step.stored_keys():
            if key in order:
                found.append(f"duplicate key {key}")
            order[key], tools[key] = number, step.tool
        if step.tool == "record_resolution" and tools.get(step.failure or "") != "record_failure":
            found.append(f"{step.key}: resolves {step.failure!r}, not an earlier record_failure")
    for q in project.questions:
        if q.type not in QUESTION_TYPES:
            found.append(f"{q.text!r}: unknown type {q.type!r}")
        for key in q.expected + q.outdated:
            if key not in order:
                found.append(f"{q.text!r}: no note {key!r}")
            elif tools[key] == "record_failure" and key not in resolved:
                found.append(f"{q.text!r}: {key} is never resolved, so never searchable")
            elif tools[key] == "close_session" and not q.contextual:
                found.append(f"{q.text!r}: {key} is a session note; mark it contextual")
        if not q.expected:
            found.append(f"{q.text!r}: no expected note")
        if q.outdated and any(order.get(o, -1) >= order.get(e, -1)
                              for o in q.outdated for e in q.expected):
            found.append(f"{q.text!r}: an outdated note is not older than the current one")
    return found


# --- look-alikes ------------------------------------------------------------------------------
def lookalikes(project: CodingProject, count: int, seed: int) -> list[list[Step]]:
    """At least `count` look-alike notes in groups that are written together (a failure and its
    fix); the same project, count and seed give the same notes."""
    rng = random.Random(f"{seed}/{project.name}")
    taken = {s.content for s in project.notes}
    groups: list[list[Step]] = []
    notes = 0
    while notes < count:
        group = _unique_group(project, rng, taken, len(groups))
        groups.append(group)
        notes += sum(len(s.stored_keys()) for s in group)
    return groups


def _unique_group(project: CodingProject, rng: random.Random, taken: set[str],
                  number: int) -> list[Step]:
    for _ in range(_MAX_TRIES):
        template = rng.choice(project.templates)
        group = _render_group(template, project.vocabulary, rng, f"{LOOKALIKE_PREFIX}{number}")
        texts = {s.content or json.dumps(s.session, sort_keys=True) for s in group}
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
    group = [_step(raw, real=False)]
    if template["tool"] == "record_failure" and template.get("fix"):
        group.append(_step({"key": key + ".fix", "tool": "record_resolution", "failure": key,
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
    """The real notes in their order with each look-alike group at a seeded random point
    between them (before the first, between any two, or after the last)."""
    rng = random.Random(f"{seed}/schedule")
    slots: list[list[Step]] = [[] for _ in range(len(real) + 1)]
    for group in groups:
        slots[rng.randint(0, len(real))].extend(group)
    merged: list[Step] = list(slots[0])
    for step, after in zip(real, slots[1:], strict=True):
        merged.append(step)
        merged.extend(after)
    return merged
