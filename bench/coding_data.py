"""The coding-agent benchmark's data: fictional projects whose notes an agent wrote while working,
the questions a developer later asks, and the look-alike notes generated around them.

A project file (`data/coding/<split>/<name>.json`) lists its real notes in the order they were
written, each with the tool that wrote it (`add_memory`, `record_failure`, `record_resolution` of an
earlier failure, `close_session`, `update_memory` rewriting an earlier add_memory note) and the
label of the client session (one agent window) that wrote it; its questions with the keys of the
notes that answer them; and templates plus vocabulary for look-alikes: notes of the same shapes
and words about other services, files, values and people. Look-alikes are drawn from a seeded
generator, so a run is reproducible, and are interleaved with the real notes in time, as a real
memory would be.

Session labels (format v2): a file labels every note or none (format v1: then every note is a
session of its own). One session's notes are consecutive, except that two sessions (two windows
at once) may interleave.

Splits: `tune` holds the projects defaults are chosen on; `check` projects are never looked at
while tuning, their figures are the reported result. `absent` questions ask about things a
project never stored, which a search should answer with nothing (the relevance floor).

`python -m bench.coding_data FILE...` validates project files: their problems, where they fall
short of the v2 minimums (MINIMUMS), their counts and how many distinct look-alikes they yield.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from kg_brain.base.errors import InvalidInput

DATA_DIR = Path(__file__).with_name("data") / "coding"
SPLITS = ("tune", "check")
Tool = Literal["add_memory", "record_failure", "record_resolution", "close_session",
               "update_memory"]
TOOLS = ("add_memory", "record_failure", "record_resolution", "close_session", "update_memory")
LOOKALIKE_TOOLS = ("add_memory", "record_failure", "close_session")  # a failure's "fix" resolves it
QUESTION_TYPES = ("lookup", "identifier", "current_value", "history", "decision", "symptom_fix",
                  "multi_note")
SESSION_FIELDS = ("objective", "completed", "blockers", "next_steps", "key_files")
THREAD_SUFFIX = ".thread"  # close_session writes a summary (its key) and an open thread
LOOKALIKE_PREFIX = "~"
WINDOWS = 2  # client sessions that may write at once
_TOKEN_EDGE = "\"'`()[]{}<>,;!?."


@dataclass(frozen=True)
class Step:
    """One write an agent made, through the tool named, in the client session labelled."""

    key: str
    tool: Tool
    content: str = ""
    note_kind: str = "general"
    failure_signature: str | None = None
    failure: str | None = None  # record_resolution: key of the failure it fixes
    target: str | None = None  # update_memory: key of the add_memory note it rewrites
    handoff: dict[str, Any] = field(default_factory=dict)  # close_session: its arguments
    session: str | None = None  # label of the client session; None in format v1
    real: bool = True

    @property
    def label(self) -> str:
        """The client session: a note without a label (format v1) is a session of its own."""
        return self.session if self.session is not None else self.key

    def stored_keys(self) -> list[str]:
        """Keys of the notes this step creates (update_memory rewrites one, creates none)."""
        if self.tool == "update_memory":
            return []
        return [self.key, self.key + THREAD_SUFFIX] if self.tool == "close_session" else [self.key]

    def text(self) -> str:
        return self.content or " ".join(
            v if isinstance(v, str) else " ".join(v) for v in self.handoff.values())


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


def read_project(path: Path) -> CodingProject:
    """A project file as written, problems and all (malformed JSON or fields raise)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    try:
        return CodingProject(
            name=data["name"], description=data.get("description", ""), start=data["start"],
            notes=[step_of(n) for n in data["notes"]],
            questions=[Question(q["text"], q["type"], list(q["expected"]),
                                list(q.get("outdated") or []), bool(q.get("contextual")))
                       for q in data["questions"]],
            vocabulary=data["lookalikes"]["vocabulary"],
            templates=data["lookalikes"]["templates"],
            absent=[str(q) for q in data.get("absent") or []])
    except (KeyError, TypeError, AttributeError) as exc:
        raise InvalidInput(f"{path}: malformed coding project ({exc!r})") from exc


def load_project(path: Path) -> CodingProject:
    project = read_project(path)
    found = problems(project)
    if found:
        raise InvalidInput(f"{path}: " + "; ".join(found))
    return project


def rewordings_of(path: Path) -> dict[tuple[str, str], list[str]]:
    """(project, question) -> the question's other wordings, from a rewordings file
    (bench/data/coding/tune-rewordings*.json)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return {(r["project"], r["question"]): r["rewordings"] for r in data["questions"]}


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


def step_of(raw: dict[str, Any], real: bool = True) -> Step:
    tool = raw["tool"]
    if tool not in TOOLS:
        raise InvalidInput(f"note {raw.get('key')!r}: unknown tool {tool!r}")
    handoff = {f: raw.get(f) or ([] if f != "objective" else "") for f in SESSION_FIELDS} \
        if tool == "close_session" else {}
    session = raw.get("session")
    return Step(key=str(raw["key"]), tool=tool, content=raw.get("content", ""),
                note_kind=raw.get("note_kind") or "general",
                failure_signature=raw.get("failure_signature"), failure=raw.get("failure"),
                target=raw.get("target"), handoff=handoff,
                session=None if session is None else str(session), real=real)


def blocks(notes: list[Step]) -> list[list[Step]]:
    """The notes cut wherever no session continues across the cut: each block is one session's
    notes, or the interleaved notes of sessions working at once."""
    left = Counter(s.label for s in notes)
    out: list[list[Step]] = [[]]
    running: set[str] = set()
    for step in notes:
        out[-1].append(step)
        left[step.label] -= 1
        if left[step.label]:
            running.add(step.label)
        else:
            running.discard(step.label)
        if not running:
            out.append([])
    return out[:-1]


# --- problems ---------------------------------------------------------------------------------
class _Notes:
    """The real notes by key, in order: the tool that wrote each, its text as last written, and
    what is wrong with them."""

    def __init__(self, notes: list[Step]) -> None:
        self.order: dict[str, int] = {}
        self.tool: dict[str, str] = {}
        self.text: dict[str, str] = {}
        self.updated: set[str] = set()
        self.resolved = {s.failure for s in notes if s.tool == "record_resolution"}
        self.found: list[str] = []
        for number, step in enumerate(notes):
            self._add(number, step)

    def _add(self, number: int, step: Step) -> None:
        if step.key.startswith(LOOKALIKE_PREFIX):
            self.found.append(f"{step.key}: real keys may not start with {LOOKALIKE_PREFIX!r}")
        for key in step.stored_keys() or [step.key]:
            if key in self.order:
                self.found.append(f"duplicate key {key}")
            self.order[key], self.tool[key], self.text[key] = number, step.tool, step.text()
        if step.tool == "record_resolution" and self.tool.get(step.failure or "") != \
                "record_failure":
            self.found.append(f"{step.key}: resolves {step.failure!r}, not an earlier "
                              "record_failure")
        if step.tool == "update_memory":
            if self.tool.get(step.target or "") != "add_memory":
                self.found.append(f"{step.key}: updates {step.target!r}, not an earlier "
                                  "add_memory note")
            else:
                self.text[str(step.target)] = step.content
                self.updated.add(str(step.target))

    def expectable(self, q: Question, key: str) -> str | None:
        """Why a search cannot return the note as the question expects it, if it cannot."""
        tool = self.tool.get(key)
        if tool is None:
            return f"no note {key!r}"
        if tool == "update_memory":
            return f"{key} is an update_memory step; expect the note it updates"
        if tool == "record_failure" and key not in self.resolved:
            return f"{key} is never resolved, so never searchable"
        if tool == "close_session" and not q.contextual:
            return f"{key} is a session note; mark it contextual"
        return None


def problems(project: CodingProject) -> list[str]:
    """What makes the data unusable: unknown or duplicate keys, a resolution of no earlier
    failure, an update of no earlier add_memory note, three sessions at once, an expected note
    that searches cannot return or cannot return as the question needs it, an outdated note that
    is not older, an identifier question whose note does not hold its identifier."""
    notes = _Notes(project.notes)
    found = notes.found + _session_problems(project.notes)
    for q in project.questions:
        found += [f"{q.text!r}: {p}" for p in _question_problems(q, notes)]
    for number, template in enumerate(project.templates):
        if template.get("tool") not in LOOKALIKE_TOOLS:
            found.append(f"template {number}: tool {template.get('tool')!r}, not one of "
                         f"{', '.join(LOOKALIKE_TOOLS)}")
        elif template["tool"] != "close_session" and not template.get("content"):
            found.append(f"template {number}: no content")
    return found


def _session_problems(notes: list[Step]) -> list[str]:
    unlabelled = [s.key for s in notes if s.session is None]
    found = [f"notes without a session label beside labelled ones: {', '.join(unlabelled[:5])}"]
    if not unlabelled or len(unlabelled) == len(notes):
        found = []
    found += [f"{s.key}: session labels may not start with {LOOKALIKE_PREFIX!r}"
              for s in notes if (s.session or "").startswith(LOOKALIKE_PREFIX)]
    for block in blocks(notes):
        labels = list(dict.fromkeys(s.label for s in block))
        if len(labels) > WINDOWS:
            found.append(f"sessions {', '.join(labels)} interleave; at most {WINDOWS} at once "
                         "(one session's notes are consecutive)")
    return found


def _question_problems(q: Question, notes: _Notes) -> list[str]:
    found = [] if q.type in QUESTION_TYPES else [f"unknown type {q.type!r}"]
    found += [] if q.expected else ["no expected note"]
    found += [p for k in q.expected + q.outdated if (p := notes.expectable(q, k))]
    if found:
        return found
    if q.outdated and q.type != "current_value":
        found.append("only current_value questions list outdated notes")
    if q.type == "current_value" and not q.outdated:
        found.append("a current_value question lists the notes it replaced as outdated")
    if any(notes.order[o] >= notes.order[e] for o in q.outdated for e in q.expected):
        found.append("an outdated note is not older than the current one")
    if q.type == "history":
        found += _history_problems(q, notes)
    if q.type == "identifier" and not any(token in notes.text[k] for k in q.expected
                                          for token in identifiers(q.text)):
        found.append("no identifier of the question is held verbatim by an expected note")
    return found


def _history_problems(q: Question, notes: _Notes) -> list[str]:
    """A history question asks for an old value: an add_memory note that a newer add_memory note
    replaced, still stating it (update_memory keeps the old text only as a revision)."""
    found = []
    for key in q.expected:
        if notes.tool[key] != "add_memory":
            found.append(f"{key} is not an add_memory note")
        elif key in notes.updated:
            found.append(f"{key} was rewritten by update_memory; its old text is not searchable")
        elif not any(t == "add_memory" and notes.order[k] > notes.order[key]
                     for k, t in notes.tool.items()):
            found.append(f"no add_memory note is newer than {key}")
    return found


def identifiers(text: str) -> list[str]:
    """Tokens of a text that look like identifiers: with a digit, or joined by - _ . : /."""
    tokens = (t.strip(_TOKEN_EDGE).rstrip(":") for t in text.split())
    return [t for t in tokens
            if any(c.isdigit() for c in t) or re.search(r"\w[-_.:/]\w", t)]



# --- validation of project files (python -m bench.coding_data FILE...) ----------------------
MINIMUMS = {  # format v2, per project
    "notes": 45, "record_failure": 5, "record_resolution": 5, "close_session": 2,
    "update_memory": 2, "sessions": 8, "questions": 50, "lookup": 10, "identifier": 8,
    "current_value": 6, "history": 3, "decision": 6, "symptom_fix": 5, "multi_note": 5,
    "absent": 8, "templates": 25}
MAX_SESSIONS = 14
SESSION_NOTES = (2, 8)
VOCABULARY_VALUES = 10
LOOKALIKE_COUNT = 250  # the look-alike notes a project must yield distinct


def counts(project: CodingProject) -> Counter[str]:
    """Notes (update_memory steps are no notes) per tool, sessions, questions per type, absent
    questions and templates."""
    found = Counter(s.tool for s in project.notes) + Counter(q.type for q in project.questions)
    found.update(notes=sum(s.tool != "update_memory" for s in project.notes),
                 sessions=len({s.label for s in project.notes}),
                 questions=len(project.questions), absent=len(project.absent),
                 templates=len(project.templates))
    return found


def shortfalls(project: CodingProject) -> list[str]:
    """Where a project falls short of format v2 (counts, sessions, labels, multi-note sizes)."""
    have = counts(project)
    found = [f"{name}: {have[name]}, at least {least}" for name, least in MINIMUMS.items()
             if have[name] < least]
    found += _session_shortfalls(project.notes, have["sessions"])
    found += [f"multi_note {q.text!r}: {len(q.expected)} expected notes, not 2-4"
              for q in project.questions if q.type == "multi_note" and
              not 2 <= len(q.expected) <= 4]
    return found


def _session_shortfalls(notes: list[Step], sessions: int) -> list[str]:
    unlabelled = sum(s.session is None for s in notes)
    if unlabelled:
        return [f"{unlabelled} notes have no session label"]
    low, high = SESSION_NOTES
    found = [f"sessions: {sessions}, at most {MAX_SESSIONS}"] if sessions > MAX_SESSIONS else []
    found += [f"session {label}: {n} notes, not {low}-{high}"
              for label, n in Counter(s.label for s in notes).items() if not low <= n <= high]
    if not any(len({s.label for s in b}) == WINDOWS for b in blocks(notes)):
        found.append("no place where two sessions (windows) write at once")
    return found


def validate(path: Path, seed: int) -> list[str]:
    """A file's report: its problems, shortfalls, counts and the look-alike notes it yields;
    the report's lines that are errors start with "problem" or "short"."""
    from bench.coding_lookalikes import drawable  # that module builds on this one

    try:
        project = read_project(path)
    except (InvalidInput, ValueError, OSError) as exc:
        return [f"problem: {exc}"]
    lines = [f"problem: {p}" for p in problems(project)]
    lines += [f"short: {s}" for s in shortfalls(project)]
    try:
        drawn, why = drawable(project, seed, 2 * LOOKALIKE_COUNT)
    except (KeyError, TypeError, ValueError) as exc:
        drawn, why = 0, f"a template or the vocabulary is malformed: {exc!r}"
    if drawn < LOOKALIKE_COUNT:
        lines.append(f"problem: only {drawn} distinct look-alike notes drawable, "
                     f"{LOOKALIKE_COUNT} needed ({why})")
    lines.append(f"look-alike notes drawable distinct (seed {seed}): {drawn}"
                 + ("" if why else f" (stopped at {2 * LOOKALIKE_COUNT})"))
    have = counts(project)
    lines.append("tools: " + ", ".join(f"{t} {have[t]}" for t in TOOLS)
                 + f"; notes {have['notes']} in {have['sessions']} sessions")
    lines.append("questions: " + ", ".join(f"{t} {have[t]}" for t in QUESTION_TYPES)
                 + f"; {have['questions']} in all; absent {have['absent']}")
    small = [s for s, v in project.vocabulary.items()
             if isinstance(v, list) and len(v) < VOCABULARY_VALUES]
    lines.append(f"templates {have['templates']}, vocabulary slots {len(project.vocabulary)}"
                 + (f"; fewer than {VOCABULARY_VALUES} values: {', '.join(small)}" if small
                    else ""))
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.coding_data", description=(
        "Validate coding project files: problems, shortfalls of format v2, counts."))
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--seed", type=int, default=7, help="look-alike generator seed")
    args = parser.parse_args(argv)
    failed = 0
    for path in args.files:
        lines = validate(path, args.seed)
        bad = sum(line.startswith(("problem", "short")) for line in lines)
        failed += bool(bad)
        sys.stdout.write(f"== {path}: {bad or 'no'} problems or shortfalls\n"
                         + "".join(f"  {line}\n" for line in lines))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
