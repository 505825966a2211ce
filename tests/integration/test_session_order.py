"""The session order on the real server: a permanent note FOLLOWS the note its client session
wrote just before it in the project, and both searches lift the notes written next to a hit."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from kg_brain.base.vocab import LinkType
from kg_brain.domain.ranking import NEAR_HEAD
from kg_brain.domain.search import Search
from kg_brain.enrichment.embed import SentenceTransformerEmbedder
from kg_brain.root.app import Brain
from kg_brain.shapes.models import Hit
from kg_brain.store.db import Database
from tests.support.brains import make_brain

START = datetime(2026, 5, 4, 9, 0, tzinfo=UTC)


class StepClock:
    """The time a test sets: writes happen when the test says."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def clock() -> StepClock:
    return StepClock()


@pytest.fixture
def brain(db: Database, embedder: SentenceTransformerEmbedder, clock: StepClock) -> Brain:
    return make_brain(db, embedder, clock=clock)


def follows(brain: Brain, zk_id: str) -> list[str]:
    note = brain.reader.get([zk_id])[0]
    return [x.zk_id for x in note.links if x.type == LinkType.FOLLOWS and x.direction == "out"]


def test_a_note_follows_the_last_one_its_client_session_wrote(brain: Brain, clock: StepClock,
                                                              project: str) -> None:
    """Two windows writing in turn keep a chain each; a fleeting note, another project's note
    and a note after the gap are no link of it."""
    texts = {
        "a1": "The nightly export job writes parquet files to the archive bucket.",
        "b1": "Mobile release builds are signed on the CI runner, never on laptops.",
        "a2": "The archive bucket keeps parquet exports for ninety days, then moves them to "
              "cold storage.",
        "b2": "The Android signing key lives in the CI secret store under the release team.",
        "a3": "Export failures page the data team through the analytics alert channel.",
    }
    ids = {}
    for name, text in texts.items():
        ids[name] = brain.writer.add(text, project, session_id=f"window-{name[0]}").note.zk_id
        brain.writer.add(f"Scratch after {name}: check this later.", project,
                         memory_type="fleeting", session_id=f"window-{name[0]}")
        brain.writer.add("Grafana dashboards are provisioned from the ops repository.",
                         "other-" + project, session_id=f"window-{name[0]}")
        clock.advance(minutes=2)
    assert {name: follows(brain, zk) for name, zk in ids.items()} == {
        "a1": [], "b1": [], "a2": [ids["a1"]], "b2": [ids["b1"]], "a3": [ids["a2"]]}
    assert brain.reader.get([ids["a1"]])[0].session_id == "window-a"
    clock.advance(minutes=45)  # beyond SESSION_GAP_S (30 minutes): the order breaks
    late = brain.writer.add("Grafana alerts for the payment API page the on-call engineer "
                            "after five minutes of errors.", project, session_id="window-a")
    assert follows(brain, late.note.zk_id) == []
    again = brain.writer.add(texts["a1"], project, session_id="window-a")
    assert again.deduplicated  # a merge writes no note, so no session link either
    assert follows(brain, late.note.zk_id) == []


def test_a_note_of_no_session_follows_none_and_none_follows_it(brain: Brain, clock: StepClock,
                                                              project: str) -> None:
    first = brain.writer.add("Feature flags are read from the config service at start.",
                             project, session_id="window-1").note.zk_id
    clock.advance(minutes=1)
    alone = brain.writer.add("The staging cluster scales to zero at night.", project).note
    clock.advance(minutes=1)
    third = brain.writer.add("Flag changes need a restart of the worker pods.", project,
                             session_id="window-1").note.zk_id
    assert alone.session_id is None
    assert follows(brain, alone.zk_id) == []
    assert follows(brain, third) == [first]


def test_a_fix_follows_its_session_and_a_handoff_stays_out_of_the_order(
        brain: Brain, clock: StepClock, project: str) -> None:
    step = brain.writer.add("The billing importer reads CSV files from the upload folder.",
                            project, session_id="ses_1").note.zk_id
    clock.advance(minutes=1)
    failure = brain.mistakes.record_failure(
        "pytest tests/test_import.py failed: UnicodeDecodeError in the billing importer",
        project, session_id="ses_1")
    clock.advance(minutes=1)
    closed = brain.sessions.close(project, "Fix the billing importer", ["found the encoding"],
                                  [], ["decode uploads as UTF-8"], session_id="ses_1")
    clock.advance(minutes=1)
    fixed = brain.mistakes.record_resolution(
        failure.zk_id, "Open the uploads with encoding='utf-8-sig': Excel writes a BOM.",
        session_id="ses_1")
    handoffs = [closed.summary_zk_id, closed.open_thread_zk_id]
    assert [n.session_id for n in brain.reader.get(handoffs)] == ["ses_1", "ses_1"]
    assert [follows(brain, h) for h in handoffs] == [[], []]
    assert follows(brain, fixed.fix_zk_id) == [step]  # not the handoff written in between


def test_the_session_gap_setting_turns_the_order_off(db: Database,
                                                     embedder: SentenceTransformerEmbedder,
                                                     clock: StepClock, project: str) -> None:
    brain = make_brain(db, embedder, clock=clock, session_gap_s=0)
    brain.writer.add("Feature flags are read from the config service at start.", project,
                     session_id="window-1")
    clock.advance(minutes=1)
    later = brain.writer.add("Flag changes need a restart of the worker pods.", project,
                             session_id="window-1")
    assert follows(brain, later.note.zk_id) == []


QUESTION = "Which database did Priya pick for the billing service?"


def _conversation(brain: Brain, clock: StepClock, project: str) -> tuple[str, str]:
    """A turn that words the question, the reply that holds the answer (and shares no word
    with the question), and turns about other things around them."""
    ids = []
    for text in [
        "Marco (9:00 am on 3 June, 2025): The kayak trip got rained out again this weekend.",
        "Marco (9:01 am on 3 June, 2025): Priya, which database did you pick for the billing "
        "service?",
        "Priya (9:02 am on 3 June, 2025): Postgres, because the team already runs it well.",
        "Marco (9:03 am on 3 June, 2025): Nice, my daughter starts swimming lessons in July.",
        "Priya (9:04 am on 3 June, 2025): The billing service dashboard is slow on Mondays.",
        "Marco (9:05 am on 3 June, 2025): Which database would you pick for a hobby project?",
        "Priya (9:06 am on 3 June, 2025): I did pick the billing reports layout myself.",
        "Marco (9:07 am on 3 June, 2025): The service at the new cafe was friendly.",
    ]:
        ids.append(brain.writer.add(text, project, session_id="chat").note.zk_id)
        clock.advance(minutes=1)
    return ids[1], ids[2]


def _rank(hits: list[Hit], zk_id: str) -> int:
    return next((i for i, h in enumerate(hits) if h.zk_id == zk_id), len(hits))


@pytest.mark.parametrize("method", ["search_memory", "deep_search"])
def test_the_reply_written_after_a_found_turn_is_lifted(brain: Brain, clock: StepClock,
                                                         project: str, method: str) -> None:
    asked, answer = _conversation(brain, clock, project)
    assert follows(brain, answer) == [asked]
    off = Search(brain.deps, replace(brain.search.tuning, session_after=0.0, session_before=0.0),
                 replace(brain.search.deep_tuning, session_after=0.0, session_before=0.0))
    lifted = getattr(brain.search, method)(QUESTION, project, top_k=8)
    plain = getattr(off, method)(QUESTION, project, top_k=8)
    assert lifted[0].zk_id == plain[0].zk_id == asked
    # deep_search keeps its best NEAR_HEAD places for the hits closest to the query: two turns
    # of the conversation are closer to it than the reply, which shares no word with it
    assert _rank(lifted, answer) < min(NEAR_HEAD + 1, _rank(plain, answer))
    hit = lifted[_rank(lifted, answer)]
    assert any(f.channel == "session" and f.via == asked and f.relationship == "FOLLOWS"
               for f in hit.found_by)


@pytest.mark.parametrize("method", ["search_memory", "deep_search"])
def test_a_look_alike_written_next_stays_below_the_note_that_lifts_it(
        brain: Brain, clock: StepClock, project: str, method: str) -> None:
    """Facts written in a row about similar things: the one asked about stays first."""
    ids = {}
    for n in (3, 4, 5):
        ids[n] = brain.writer.add(f"Service alpha-{n} exposes Prometheus metrics on port "
                                  f"91{n:02d} at /metrics.", project,
                                  session_id="window-1").note.zk_id
        clock.advance(minutes=1)
    for n in (3, 4, 5):
        hits = getattr(brain.search, method)(
            f"which port does alpha-{n} expose metrics on?", project, top_k=3)
        assert hits[0].zk_id == ids[n]
        assert all(h.score < hits[0].score for h in hits[1:])
