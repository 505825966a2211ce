"""The coding benchmark's shipped data is usable and its look-alike generator is reproducible."""

from __future__ import annotations

import itertools
import json
import random
import re
from collections import Counter
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bench.coding import client_session
from bench.coding_data import (
    DATA_DIR,
    LOOKALIKE_COUNT,
    LOOKALIKE_PREFIX,
    QUESTION_TYPES,
    CodingProject,
    Question,
    Step,
    blocks,
    identifiers,
    main,
    problems,
    shipped_projects,
    validate,
)
from bench.coding_lookalikes import dates, lookalikes, render, schedule
from kg_brain.base.errors import InvalidInput
from kg_brain.base.validate import session_id

PROJECTS = shipped_projects(split="tune")  # sizes and wording are checked on the tuning split
CHECK = shipped_projects(split="check")
LOOKALIKES = 300
V1_TYPES = {"lookup", "current_value", "decision", "symptom_fix", "multi_note"}
V1_TOOLS = {"add_memory", "record_failure", "record_resolution", "close_session"}
_IDENTIFIER = re.compile(r"\b\w+(?:[-_.:/]\w+)+\b")


def _stored(steps: list[Step]) -> int:
    return sum(len(s.stored_keys()) for s in steps)


def test_the_check_split_is_at_least_two_other_projects_usable_as_they_are() -> None:
    """Structure only: the check projects are never read for anything else here."""
    assert len(CHECK) >= 2 and not {p.name for p in CHECK} & {p.name for p in PROJECTS}
    assert all(problems(p) == [] and {q.type for q in p.questions} >= V1_TYPES for p in CHECK)
    assert all(p.absent for p in PROJECTS + CHECK)
    assert sorted(p.name for p in shipped_projects()) == sorted(p.name for p in PROJECTS + CHECK)


def test_an_unknown_split_is_refused() -> None:
    with pytest.raises(InvalidInput, match="unknown split"):
        shipped_projects(split="holdout")


def test_at_least_three_projects_of_different_stacks() -> None:
    assert len(PROJECTS) >= 3
    assert len({p.name for p in PROJECTS}) == len({p.description for p in PROJECTS}) == \
        len(PROJECTS)


@pytest.mark.parametrize("project", PROJECTS, ids=lambda p: p.name)
def test_every_project_has_enough_notes_of_every_tool(project: CodingProject) -> None:
    assert _stored(project.notes) >= 45
    tools = Counter(s.tool for s in project.notes)
    assert set(tools) >= V1_TOOLS
    kinds = Counter(s.note_kind for s in project.notes if s.tool == "add_memory")
    assert kinds["general"] > len(project.notes) // 3  # agents often leave the kind general
    assert {"decision", "pattern", "research"} <= set(kinds)


@pytest.mark.parametrize("project", PROJECTS, ids=lambda p: p.name)
def test_every_project_asks_every_type_of_question(project: CodingProject) -> None:
    assert len(project.questions) >= 20
    assert V1_TYPES <= {q.type for q in project.questions} <= set(QUESTION_TYPES)
    multi = [q for q in project.questions if q.type == "multi_note"]
    assert all(2 <= len(q.expected) <= 4 for q in multi)
    assert all(q.outdated for q in project.questions if q.type == "current_value")


def test_sixty_questions_in_total_written_as_questions_not_note_text() -> None:
    questions = [q for p in PROJECTS for q in p.questions]
    assert len(questions) >= 60
    for p in PROJECTS:
        contents = {s.content for s in p.notes}
        assert not any(q.text in contents for q in p.questions)


@pytest.mark.parametrize("project", PROJECTS, ids=lambda p: p.name)
def test_shipped_data_has_no_problems(project: CodingProject) -> None:
    """Every expected key exists and is searchable, every resolution names an earlier failure,
    every outdated note is older than the note that replaces it."""
    assert problems(project) == []
    keys = {k for s in project.notes for k in s.stored_keys()}
    assert all(set(q.expected + q.outdated) <= keys for q in project.questions)
    failures = {s.key for s in project.notes if s.tool == "record_failure"}
    assert all(s.failure in failures for s in project.notes if s.tool == "record_resolution")


def test_problems_names_broken_references() -> None:
    base = PROJECTS[0]
    fix = next(s for s in base.notes if s.tool == "record_resolution")
    last_added = [s for s in base.notes if s.tool == "add_memory"][-1]
    broken = replace(base, notes=[replace(fix, failure="nowhere") if s is fix else s
                                  for s in base.notes],
                     questions=[Question("where?", "lookup", ["missing-key"]),
                                Question("now?", "current_value", [base.notes[0].key],
                                         [last_added.key])])
    found = " | ".join(problems(broken))
    assert "nowhere" in found and "missing-key" in found and "not older" in found


def test_an_unresolved_failure_or_a_session_note_needs_care_to_be_expected() -> None:
    notes = [Step("boom", "record_failure", "it failed"),
             Step("handoff", "close_session", handoff={"objective": "x"})]
    project = CodingProject("p", "", "2024-01-01T00:00:00+00:00", notes,
                            [Question("q1", "lookup", ["boom"]),
                             Question("q2", "lookup", ["handoff"]),
                             Question("q3", "lookup", ["handoff.thread"], contextual=True)],
                            {}, [])
    found = problems(project)
    assert len(found) == 2 and "never resolved" in found[0] and "contextual" in found[1]


@pytest.mark.parametrize("project", PROJECTS, ids=lambda p: p.name)
def test_lookalikes_are_reproducible_many_and_distinct(project: CodingProject) -> None:
    groups = lookalikes(project, LOOKALIKES, seed=7)
    assert groups == lookalikes(project, LOOKALIKES, seed=7)
    assert groups != lookalikes(project, LOOKALIKES, seed=8)
    steps = [s for g in groups for s in g]
    assert _stored(steps) >= LOOKALIKES
    assert all(not s.real and s.key.startswith(LOOKALIKE_PREFIX) for s in steps)
    texts = [s.content for s in steps if s.content]
    assert len(texts) == len(set(texts))
    assert not set(texts) & {s.content for s in project.notes}
    assert {s.tool for s in steps} == V1_TOOLS


@pytest.mark.parametrize("project", PROJECTS, ids=lambda p: p.name)
def test_lookalikes_share_identifiers_with_real_notes(project: CodingProject) -> None:
    """Services, errors and files of the real notes also appear in look-alikes, so a look-alike
    competes on the entities a question names, not only on wording."""
    real = {m.lower() for s in project.notes for m in _IDENTIFIER.findall(s.content)}
    fakes = [s.content.lower() for g in lookalikes(project, LOOKALIKES, seed=7) for s in g]
    sharing = [t for t in fakes if any(i in t for i in real)]
    assert len(sharing) >= 10


@pytest.mark.parametrize("project", PROJECTS, ids=lambda p: p.name)
def test_schedule_interleaves_lookalike_sessions_and_keeps_the_real_order(
        project: CodingProject) -> None:
    steps = schedule(project.notes, lookalikes(project, LOOKALIKES, seed=7), seed=7)
    assert [s for s in steps if s.real] == project.notes
    real_at = [i for i, s in enumerate(steps) if s.real]
    inside = [i for i, s in enumerate(steps) if not s.real and real_at[0] < i < real_at[-1]]
    assert len(inside) > LOOKALIKES // 2
    position = {s.key: i for i, s in enumerate(steps)}
    assert all(position[str(s.failure)] < position[s.key]
               for s in steps if s.tool == "record_resolution")
    fake = Counter(s.session for s in steps if not s.real)
    assert all(str(label).startswith(LOOKALIKE_PREFIX) for label in fake)
    assert len(fake) > 10 and max(fake.values()) <= 2 * 8  # 2-8 groups of one or two notes


def _labelled(pattern: str) -> list[Step]:
    """Real notes whose sessions follow the pattern, e.g. "aab": two notes of a, one of b."""
    return [Step(f"n{i}", "add_memory", f"note {i}", session=label)
            for i, label in enumerate(pattern)]


def test_lookalike_sessions_go_between_real_sessions_never_inside_or_between_windows() -> None:
    real = _labelled("aaabbbcdcdcdeee")  # c and d: two windows at once
    project = replace(PROJECTS[0], notes=real)
    between = 0
    for seed in range(5):
        steps = schedule(real, lookalikes(project, 120, seed=seed), seed=seed)
        assert [s for s in steps if s.real] == real
        assert all(len({s.real for s in b}) == 1 for b in blocks(steps))
        assert [b for b in blocks(steps) if b[0].real] == blocks(real)
        at = [i for i, s in enumerate(steps) if s.real]
        between += sum(not s.real for s in steps[at[0]:at[-1]])
    assert between > 5 * 120 // 3


def test_writes_are_minutes_apart_within_a_session_and_hours_to_days_between() -> None:
    start = datetime(2024, 3, 1, 9, tzinfo=UTC)
    steps = _labelled("aaabbbcdcdcdeee")
    times = dates(steps, start, seed=1)
    assert times == dates(steps, start, seed=1) != dates(steps, start, seed=2)
    assert times[0] == start and len(times) == len(steps)
    gaps = [later - earlier for earlier, later in itertools.pairwise(times)]
    begins = {3, 6, 12}  # where b, the c/d windows and e begin
    assert all(timedelta(hours=3) <= g <= timedelta(days=3) for i, g in enumerate(gaps, 1)
               if i in begins)
    assert all(timedelta(minutes=2) <= g <= timedelta(minutes=12)
               for i, g in enumerate(gaps, 1) if i not in begins)
    v1 = dates([Step(k, "add_memory", k) for k in "abc"], start, seed=1)  # a session per note
    assert all(b - a >= timedelta(hours=3) for a, b in itertools.pairwise(v1))


def test_render_keeps_a_slot_within_a_note_and_draws_a_second_one_distinct() -> None:
    vocabulary = {"svc": ["a", "b"], "port": {"range": [1, 3]}, "where": ["{svc} on {port}"]}
    rng = random.Random(1)
    for _ in range(20):
        picks: dict[tuple[str, str], str] = {}
        text = render("{svc}/{svc:2}/{svc}/{where}", vocabulary, picks, rng)
        one, two, again, where = text.split("/")
        assert one == again != two and where.startswith(one + " on ")
    with pytest.raises(InvalidInput, match="no vocabulary"):
        render("{nothing}", vocabulary, {}, rng)


def _v2(notes: list[Step], questions: list[Question]) -> CodingProject:
    return CodingProject("p", "", "2024-01-01T00:00:00+00:00", notes, questions, {}, [])


V2_NOTES = [Step("port", "add_memory", "The API listens on 8080.", session="s1"),
            Step("hash", "add_memory", "Reverted 7f3c9a1e: it broke PAY-1432.", session="s1"),
            Step("port-new", "add_memory", "The API now listens on 8443 (was 8080).",
                 session="s2"),
            Step("hash-more", "update_memory", "Reverted 7f3c9a1e and re-landed it as 0b1d2e3f.",
                 target="hash", session="s2")]


def test_update_memory_rewrites_an_earlier_add_memory_note_and_stores_no_note_of_its_own() -> None:
    assert V2_NOTES[3].stored_keys() == [] and problems(_v2(V2_NOTES, [])) == []
    wrong = [*V2_NOTES, Step("bad", "update_memory", "x", target="hash-more", session="s2"),
             Step("early", "update_memory", "x", target="later", session="s2"),
             Step("later", "add_memory", "y", session="s2")]
    found = problems(_v2(wrong, [Question("q", "lookup", ["hash-more"])]))
    assert [f.split(":")[0] for f in found] == ["bad", "early", "'q'"]
    assert "expect the note it updates" in found[2]


def test_a_history_question_expects_an_add_memory_note_replaced_and_still_saying_so() -> None:
    good = Question("which port did the API use before 8443?", "history", ["port"])
    assert problems(_v2(V2_NOTES, [good])) == []
    rewritten = Question("what did we revert originally?", "history", ["hash"])
    newest = Question("what port was it before?", "history", ["port-new"])
    listed = Question("port before?", "history", ["port"], outdated=["port-new"])
    found = problems(_v2(V2_NOTES, [rewritten, newest, listed]))
    assert "rewritten by update_memory" in found[0] and "no add_memory note is newer" in found[1]
    assert "only current_value questions list outdated" in found[2]


def test_an_identifier_question_holds_a_token_its_note_holds_verbatim() -> None:
    assert identifiers("why is there a lock at billing/models.py:212?") == \
        ["billing/models.py:212"]
    assert identifiers("ERR_OSSL_EVP_UNSUPPORTED again, see `ingest.batch.max_rows`") == \
        ["ERR_OSSL_EVP_UNSUPPORTED", "ingest.batch.max_rows"]
    held = [Question("0b1d2e3f", "identifier", ["hash"]),  # as last written, by update_memory
            Question("did we revert 7f3c9a1e?", "identifier", ["hash"]),
            Question("why 8443 (not 8080)?", "identifier", ["port-new"])]
    assert problems(_v2(V2_NOTES, held)) == []
    gone = Question("what was PAY-1432 about?", "identifier", ["hash"])  # only in the old text
    found = problems(_v2(V2_NOTES, [gone, Question("port 8080", "identifier", ["hash"])]))
    assert len(found) == 2 and all("verbatim" in f for f in found)


def test_sessions_are_consecutive_or_two_windows_at_once() -> None:
    notes = [Step(k, "add_memory", k, session=s) for k, s in
             [("a", "s1"), ("b", "s1"), ("c", "s2"), ("d", "s3"), ("e", "s2"), ("f", "s3"),
              ("g", "s4")]]
    assert [[s.key for s in b] for b in blocks(notes)] == [["a", "b"], ["c", "d", "e", "f"], ["g"]]
    assert problems(_v2(notes, [])) == []
    three = [*notes[:2], Step("x", "add_memory", "x", session="s4"), *notes[2:]]
    assert "s4, s2, s3 interleave" in " ".join(problems(_v2(three, [])))
    unlabelled = [*notes, Step("h", "add_memory", "h")]
    assert "without a session label" in " ".join(problems(_v2(unlabelled, [])))
    assert [len(b) for b in blocks([Step(k, "add_memory", k) for k in "abc"])] == [1, 1, 1]


def _labelled_files() -> list[Path]:
    """The tuning split's files in format v2 (every note has a session label)."""
    return [p for p in sorted((DATA_DIR / "tune").glob("*.json"))
            if all("session" in n for n in json.loads(p.read_text())["notes"])]


def test_the_format_v2_tuning_projects_meet_its_minimums() -> None:
    files = _labelled_files()
    assert len(files) >= 4
    for path in files:
        lines = validate(path, seed=7)
        assert not [line for line in lines if line.startswith(("problem", "short"))], path


def test_validation_reports_problems_shortfalls_and_counts(tmp_path: Path) -> None:
    raw = json.loads(_labelled_files()[0].read_text())
    raw["notes"].append({"key": "u", "tool": "update_memory", "target": "nowhere",
                         "content": "x"})
    raw["questions"] = [q for q in raw["questions"] if q["type"] != "identifier"]
    path = tmp_path / "p.json"
    path.write_text(json.dumps(raw))
    lines = validate(path, seed=7)
    assert lines[0].startswith("problem: u: updates 'nowhere'")
    assert lines[1] == "problem: notes without a session label beside labelled ones: u"
    assert "short: identifier: 0, at least 8" in lines
    drawn = next(line for line in lines if line.startswith("look-alike notes drawable"))
    assert int(drawn.split(": ")[1].split()[0]) >= LOOKALIKE_COUNT
    assert "update_memory 3;" in next(line for line in lines if line.startswith("tools:"))
    assert main([str(path)]) == 1
    raw["lookalikes"]["templates"] = [{"tool": "add_memory", "content": "{person} owns it"}]
    raw["lookalikes"]["vocabulary"] = {"person": ["Ines", "Oskar"]}
    path.write_text(json.dumps(raw))
    assert any(line.startswith("problem: only 2 distinct") for line in validate(path, seed=7))


def test_every_replayed_step_names_a_client_session_the_tools_accept() -> None:
    """Look-alike sessions (`~s3`) and real ones (`s3`) are distinct, valid session ids."""
    ids = {client_session("bench-coding-1a2b-quillpad", label) for label in ("s3", "~s3")}
    assert len(ids) == 2 and all(session_id(i) == i for i in ids)
