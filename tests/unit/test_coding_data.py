"""The coding benchmark's shipped data is usable and its look-alike generator is reproducible."""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import replace

import pytest

from bench.coding_data import (
    LOOKALIKE_PREFIX,
    QUESTION_TYPES,
    CodingProject,
    Question,
    Step,
    lookalikes,
    problems,
    render,
    schedule,
    shipped_projects,
)
from kg_brain.errors import InvalidInput

PROJECTS = shipped_projects(split="tune")  # sizes and wording are checked on the tuning split
CHECK = shipped_projects(split="check")
LOOKALIKES = 300
_IDENTIFIER = re.compile(r"\b\w+(?:[-_.:/]\w+)+\b")


def _stored(steps: list[Step]) -> int:
    return sum(len(s.stored_keys()) for s in steps)


def test_the_check_split_is_at_least_two_other_projects_usable_as_they_are() -> None:
    """Structure only: the check projects are never read for anything else here."""
    assert len(CHECK) >= 2 and not {p.name for p in CHECK} & {p.name for p in PROJECTS}
    assert all(problems(p) == [] and {q.type for q in p.questions} == set(QUESTION_TYPES)
               for p in CHECK)
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
    assert set(tools) == {"add_memory", "record_failure", "record_resolution", "close_session"}
    kinds = Counter(s.note_kind for s in project.notes if s.tool == "add_memory")
    assert kinds["general"] > len(project.notes) // 3  # agents often leave the kind general
    assert {"decision", "pattern", "research"} <= set(kinds)


@pytest.mark.parametrize("project", PROJECTS, ids=lambda p: p.name)
def test_every_project_asks_every_type_of_question(project: CodingProject) -> None:
    assert len(project.questions) >= 20
    assert {q.type for q in project.questions} == set(QUESTION_TYPES)
    multi = [q for q in project.questions if q.type == "multi_note"]
    assert all(2 <= len(q.expected) <= 3 for q in multi)
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
    broken = replace(base, notes=[replace(fix, failure="nowhere") if s is fix else s
                                  for s in base.notes],
                     questions=[Question("where?", "lookup", ["missing-key"]),
                                Question("now?", "current_value", [base.notes[0].key],
                                         [base.notes[-1].key])])
    found = " | ".join(problems(broken))
    assert "nowhere" in found and "missing-key" in found and "not older" in found


def test_an_unresolved_failure_or_a_session_note_needs_care_to_be_expected() -> None:
    notes = [Step("boom", "record_failure", "it failed"),
             Step("handoff", "close_session", session={"objective": "x"})]
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
    assert {s.tool for s in steps} == {"add_memory", "record_failure", "record_resolution",
                                       "close_session"}


@pytest.mark.parametrize("project", PROJECTS, ids=lambda p: p.name)
def test_lookalikes_share_identifiers_with_real_notes(project: CodingProject) -> None:
    """Services, errors and files of the real notes also appear in look-alikes, so a look-alike
    competes on the entities a question names, not only on wording."""
    real = {m.lower() for s in project.notes for m in _IDENTIFIER.findall(s.content)}
    fakes = [s.content.lower() for g in lookalikes(project, LOOKALIKES, seed=7) for s in g]
    sharing = [t for t in fakes if any(i in t for i in real)]
    assert len(sharing) >= 10


@pytest.mark.parametrize("project", PROJECTS, ids=lambda p: p.name)
def test_schedule_interleaves_lookalikes_and_keeps_the_real_order(
        project: CodingProject) -> None:
    steps = schedule(project.notes, lookalikes(project, LOOKALIKES, seed=7), seed=7)
    assert [s for s in steps if s.real] == project.notes
    real_at = [i for i, s in enumerate(steps) if s.real]
    inside = [i for i, s in enumerate(steps) if not s.real and real_at[0] < i < real_at[-1]]
    assert len(inside) > LOOKALIKES // 2
    position = {s.key: i for i, s in enumerate(steps)}
    assert all(position[str(s.failure)] < position[s.key]
               for s in steps if s.tool == "record_resolution")


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
