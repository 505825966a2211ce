"""The numpy mirror of search_memory's ranking (bench/ranking.py) on notes whose signals are
set by hand."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from bench.fit_ranking import fit, floor_left_out, objective, why
from bench.ranking import ABSENT, Asked, Notes, fusion, lexical, rank, score
from kg_brain.domain.ranking import AS_WRITTEN, RARE_WORDS, Tuning

FIELDS = ("content", "title", "keywords", "context")


def notes(count: int, supersedes: list[tuple[int, int]] = (),  # type: ignore[assignment]
          inferred: list[tuple[int, int]] = (),  # type: ignore[assignment]
          entities: list[dict[str, int]] | None = None, vectors: np.ndarray | None = None,
          texts: list[str] | None = None, kinds: dict[str, str] | None = None,
          note_kinds: list[str] | None = None,
          fixes: list[tuple[int, int, float]] = ()) -> Notes:  # type: ignore[assignment]
    ids = [f"n{i:02d}" for i in range(count)]
    return Notes(ids=ids, kinds=np.asarray(note_kinds or ["general"] * count),
                 created=np.arange(count, dtype=np.float64),
                 vectors=np.eye(count) if vectors is None else vectors,
                 follows=np.zeros((0, 2), dtype=np.int64),
                 fixes=np.asarray([f[:2] for f in fixes], dtype=np.int64).reshape(-1, 2),
                 fix_weights=np.asarray([f[2] for f in fixes], dtype=np.float64),
                 supersedes=np.asarray([*supersedes, *inferred], dtype=np.int64).reshape(-1, 2),
                 asserted=np.asarray(supersedes, dtype=np.int64).reshape(-1, 2),
                 entities=entities or [{} for _ in ids], entity_kinds=kinds or {},
                 texts=texts or [""] * count, order=np.arange(count),
                 stated=np.arange(count, dtype=np.float64))


def word(size: int, **fields: list[float]) -> dict[str, np.ndarray]:
    """One query word's index score of each note per field (none where not given)."""
    return {f: np.asarray(fields.get(f, [0.0] * size), dtype=np.float64) for f in FIELDS}


def asked(cosine: list[float], expected: set[int], holders: list[list[bool]] | None = None,
          lexical: list[float] | None = None, contains: list[list[bool]] | None = None) -> Asked:
    """A lookup over len(cosine) notes; `lexical`: one query word's content score per note;
    `contains`: which notes hold each identifier in their text (`holders` unless given)."""
    size = len(cosine)
    return Asked(kind="lookup", contextual=False, history=False, cosine=np.asarray(cosine),
                 words=[word(size, content=lexical)] if lexical else [],
                 written=[word(size, content=lexical)] if lexical else [], size=size,
                 holders=np.asarray(holders or [], dtype=bool).reshape(-1, size),
                 contains=np.asarray(contains or holders or [], dtype=bool).reshape(-1, size),
                 expected=expected, pairs=[])


def test_a_superseded_note_yields_only_to_a_successor_the_query_reaches() -> None:
    # note 0 is superseded by note 2; the query is about note 0, note 2 scores low
    pool = notes(4, supersedes=[(2, 0)])
    q = asked([0.8, 0.75, 0.1, 0.0], {0})
    always = replace(Tuning(), supersede_share=0.0, same_n=0)
    assert rank(pool, q, always)[0] == 1
    assert rank(pool, q, replace(always, supersede_share=0.5))[0] == 0


def test_a_note_the_write_path_linked_as_superseded_does_not_yield() -> None:
    # as above, but the write path made the link (it links a note of several facts to a later
    # note changing one of them): the query about note 0 keeps it first
    pool = notes(4, inferred=[(2, 0)])
    q = asked([0.8, 0.75, 0.1, 0.0], {0})
    assert rank(pool, q, replace(Tuning(), supersede_share=0.0, same_n=0))[0] == 0


def test_a_linked_note_yields_only_to_a_later_note_of_its_kind_or_a_fix() -> None:
    # note 0 and the later note 1 are alike (mutual cosine 0.6) and linked by the write path;
    # the query is about note 0: it yields to a later note of its kind, not to one of another
    alike = np.eye(3)
    alike[1] = [0.6, 0.8, 0.0]
    q = asked([0.8, 0.5, 0.0], {0})
    t = replace(Tuning(), w_exact=0.0, session_after=0.0, session_before=0.0)
    for kinds, first in ((["general", "general", "general"], 1),
                         (["decision", "fix", "general"], 1),
                         (["decision", "general", "general"], 0),
                         (["research", "decision", "general"], 0)):
        pool = notes(3, inferred=[(1, 0)], vectors=alike, note_kinds=kinds)
        assert rank(pool, q, t)[0] == first, kinds


def test_a_fix_ranks_by_its_link_weight_and_yields_to_the_mistake_a_query_names() -> None:
    # note 0 is the mistake; note 1 its recorded fix (weight 1), note 2 an inferred one (0.6)
    pool = notes(4, note_kinds=["mistake", "fix", "fix", "general"],
                 fixes=[(1, 0, 1.0), (2, 0, 0.6)])
    t = replace(Tuning(), same_n=0, session_after=0.0, session_before=0.0)
    q = asked([0.8, 0.1, 0.3, 0.0], {1})
    assert rank(pool, q, t)[:3] == [1, 0, 2]
    named = asked([0.8, 0.1, 0.3, 0.0], {0}, holders=[[True, False, False, False]])
    named.named = True
    assert rank(pool, named, t)[:2] == [0, 1]
    named.named = False  # a symptom quoting the identifier still gets the fix first
    assert rank(pool, named, t)[:2] == [1, 0]
    # the fix holds it inside a longer token the index does not find it in: it holds it
    inside = asked([0.8, 0.1, 0.3, 0.0], {1}, holders=[[True, False, False, False]],
                   contains=[[True, True, False, False]])
    inside.named = True
    assert rank(pool, inside, t)[:2] == [1, 0]


def test_a_hit_holding_the_asked_identifier_does_not_yield_to_a_later_look_alike() -> None:
    same = np.ones((3, 3)) / np.sqrt(3)  # identical vectors: mutual cosine 1
    pool = notes(3, vectors=same, entities=[{"prometheus": 2}, {"prometheus": 2}, {}],
                 kinds={"prometheus": "tool"})
    q = asked([0.6, 0.55, 0.0], {0}, holders=[[True, False, False]])
    t = replace(Tuning(), same_n=3, w_exact=0.0)
    assert rank(pool, q, t)[0] == 0
    both = asked([0.6, 0.55, 0.0], {0}, holders=[[True, True, False]])
    assert rank(pool, both, t)[0] == 1  # both hold it: the later states the current value
    # the later note holds it inside a longer token ("community.hashi_vault" for
    # "hashi_vault"): the index finds no phrase there, but it holds the identifier all the same
    inside = asked([0.6, 0.55, 0.0], {0}, holders=[[True, False, False]],
                   contains=[[True, True, False]])
    assert rank(pool, inside, t)[0] == 1


def test_a_later_statement_far_down_the_pool_takes_the_place_of_the_one_it_replaces() -> None:
    # note 0 states the value, notes 1-3 are look-alikes, note 4 (written last) changes it
    alike = np.eye(5)
    alike[4] = alike[0]
    pool = notes(5, vectors=alike, entities=[{"ledger_port": 2}, {}, {}, {}, {"ledger_port": 2}],
                 kinds={"ledger_port": "env_var"})
    q = asked([0.8, 0.75, 0.74, 0.73, 0.7], {4})
    t = replace(Tuning(), w_exact=0.0, session_after=0.0, session_before=0.0)
    assert rank(pool, q, replace(t, same_n=3))[0] == 0  # only the best three took part
    assert rank(pool, q, t)[:2] == [4, 0]
    q.history = True
    assert rank(pool, q, t)[0] == 0


def test_a_linked_note_of_its_kind_past_the_head_is_yielded_to_for_the_current_value() -> None:
    # note 0 states a value, notes 1-2 are other subjects closer to the query than note 3, the
    # later note the write path linked to it (mutual cosine 0.6)
    alike = np.eye(4)
    alike[3] = [0.6, 0, 0, 0.8]
    q = asked([0.8, 0.75, 0.74, 0.6], {3})
    t = replace(Tuning(), w_exact=0.0, session_after=0.0, session_before=0.0, same_n=2)
    pool = notes(4, inferred=[(3, 0)], vectors=alike)
    assert rank(pool, q, t)[:2] == [3, 0]  # among the best LINKED_FAR * same_n = 4
    assert rank(pool, q, replace(t, same_n=1))[0] == 0  # not past the best 2
    assert rank(notes(4, vectors=alike), q, t)[0] == 0  # nor unlinked
    kinds = ["general", "general", "general", "research"]  # nor of another kind
    assert rank(notes(4, inferred=[(3, 0)], vectors=alike, note_kinds=kinds), q, t)[0] == 0
    pool.stated = np.asarray([3.0, 1.0, 2.0, 0.0])  # note 3 stated first: asked for history,
    q.history = True  # only the best same_n take part
    assert rank(pool, q, t)[0] == 0


def test_a_note_yields_to_a_later_fix_of_its_setting_but_a_fix_never_yields() -> None:
    # note 0 states a timeout, note 1 (a recorded fix, later) raised it, note 2 (later still)
    # sets it again; notes 3-4 are other subjects
    alike = np.eye(5)
    alike[1] = alike[2] = alike[0]
    pool = notes(5, vectors=alike, entities=[{"label_timeout": 3}] * 3 + [{}] * 2,
                 kinds={"label_timeout": "setting"}, note_kinds=["general", "fix", "general",
                                                                 "general", "general"])
    t = replace(Tuning(), w_exact=0.0, session_after=0.0, session_before=0.0)
    q = asked([0.8, 0.7, 0.1, 0.3, 0.2], {1})  # note 2 is out of the query's reach
    assert rank(pool, q, t)[:2] == [1, 0]  # the fix states the value it set
    symptom = asked([0.3, 0.8, 0.75, 0.2, 0.1], {1})
    assert rank(pool, symptom, t)[0] == 1  # a fix does not yield to the later note
    q.history = True
    assert rank(pool, q, t)[0] == 0  # asked for history, nothing turns to the fix


def test_asked_for_the_value_before_a_named_one_the_note_just_before_it_ranks_first() -> None:
    # notes 0, 1, 2 state one setting in turn (2 the newest, closest to the query: it names
    # it), notes 3-5 are other subjects
    alike = np.eye(6)
    alike[1] = alike[2] = alike[0]
    pool = notes(6, vectors=alike, entities=[{"pool_size": 3}] * 3 + [{}] * 3,
                 kinds={"pool_size": "setting"})
    q = asked([0.6, 0.62, 0.7, 0.3, 0.2, 0.1], {1})
    t = replace(Tuning(), w_exact=0.0, session_after=0.0, session_before=0.0)
    q.history = True
    assert rank(pool, q, t)[0] == 0  # "originally": the first value
    q.before = True
    assert rank(pool, q, t)[:2] == [1, 2]  # "before we went to 60": the one just before


def test_a_note_holding_the_query_word_as_written_ranks_above_one_holding_its_stem() -> None:
    # notes 0 and 1 equally close; the stemmed index scores both alike for the query word
    # ("generation" meets "generate"), the index of words as written only note 1
    pool = notes(3)
    q = asked([0.5, 0.5, 0.0], {1}, lexical=[5.0, 5.0, 0.0])
    q.written = [word(3, content=[0.0, 5.0, 0.0])]
    t = replace(Tuning(), same_n=0)
    assert rank(pool, q, t)[0] == 1
    q.written = [word(3, content=[5.0, 5.0, 0.0])]
    assert rank(pool, q, t)[0] == 0  # alike in both: the smaller id


def test_the_fit_finds_the_lexical_weight_a_lexical_question_needs() -> None:
    pool = notes(3)
    q = asked([0.5, 0.6, 0.0], {0}, lexical=[9.0, 1.0, 0.0])
    start = replace(Tuning(), w_lex=0.0, same_n=0)
    assert score(pool, [q], start)[0][1]["hit@1"] == 0.0
    fitted = fit([(pool, [q])], ["w_lex"], start)
    assert fitted.w_lex > 0 and objective(score(pool, [q], fitted)) > objective(
        score(pool, [q], start))


def test_the_fit_keeps_questions_about_nothing_stored_answered_with_nothing() -> None:
    pool = notes(3)
    lookup = asked([0.5, 0.6, 0.0], {0})
    lookup.words = [word(3, title=[9.0, 0.0, 0.0])]  # the title boost puts note 0 first
    decision = asked([0.0, 0.0, 0.9], {2})  # right either way
    decision.kind = "decision"
    nothing = asked([0.2, 0.2, 0.2], set())
    nothing.kind = ABSENT
    # ... and answers this one: with titles searched, note 2 holds RARE_WORDS rare words of it
    nothing.words = [word(3, title=[0.0, 0.0, 1.0]) for _ in range(RARE_WORDS)]
    start = replace(Tuning(), lex_title=0.0, same_n=0)
    boosted = replace(start, lex_title=0.25)
    assert score(pool, [lookup], boosted)[0][1]["hit@1"] == 100.0
    assert score(pool, [nothing], boosted)[0][1]["nothing"] == 0.0
    every = [lookup, decision, nothing]
    assert objective(score(pool, every, boosted)) < objective(score(pool, every, start))
    assert fit([(pool, every)], ["lex_title"], start).lex_title == 0.0
    assert fit([(pool, [lookup, decision])], ["lex_title"], start).lex_title > 0.0


def test_the_floor_is_chosen_on_the_other_projects_and_scored_on_the_one_left_out() -> None:
    def project(absent_cosine: float) -> tuple[Notes, list[Asked]]:
        nothing = asked([absent_cosine, 0.1, 0.0], set())
        nothing.kind = ABSENT
        return notes(3), [asked([0.7, 0.2, 0.0], {0}), nothing]

    chosen, left_out = floor_left_out([project(0.35), project(0.45)], 100.0, Tuning())
    # each fold's floor is the lowest above the other project's question about nothing stored
    # (no unknown words: no step)
    assert chosen == [(0.46, 0.0, 0.0), (0.36, 0.0, 0.0)]
    assert [m["nothing"] for k, m in left_out if k == ABSENT] == [100.0, 0.0]
    assert [m["hit@1"] for k, m in left_out if k != ABSENT] == [100.0, 100.0]


def about(q: Asked, held: list[float]) -> Asked:
    """`q` asking one content word that the notes hold with these scores (none: unknown)."""
    q.words = [word(len(held), content=held)]
    q.written = [word(len(held))]
    q.content = [True]
    return q


def test_each_content_word_no_note_holds_raises_the_floor() -> None:
    pool = notes(3)
    known = about(asked([0.4, 0.1, 0.0], {0}), [1.0, 0.0, 0.0])
    unknown = about(asked([0.4, 0.1, 0.0], {0}), [0.0, 0.0, 0.0])
    t = replace(Tuning(), same_n=0)
    assert rank(pool, known, t, floor=(0.35, 0.1, 0.0))[0] == 0
    assert rank(pool, unknown, t, floor=(0.35, 0.1, 0.0)) == []  # 0.4 < 0.35 + 0.1
    assert rank(pool, unknown, t, floor=(0.35, 0.0, 0.0))[0] == 0
    unknown.content = [False]  # a question's own word ("how") unknown to the notes: no step
    assert rank(pool, unknown, t, floor=(0.35, 0.1, 0.0))[0] == 0


def test_a_hit_holding_the_query_s_words_has_a_lower_floor_than_one_lacking_them() -> None:
    pool = notes(3)
    t = replace(Tuning(), same_n=0)
    holding = about(asked([0.3, 0.1, 0.0], {0}), [1.0, 0.0, 0.0])  # note 0 holds the word
    assert rank(pool, holding, t, floor=(0.28, 0.0, 0.05))[0] == 0
    # the word held by note 1 instead: note 0 lacks it, 0.3 < 0.28 + 0.05, note 1 is far
    lacking = about(asked([0.3, 0.1, 0.0], {0}), [0.0, 1.0, 0.0])
    assert rank(pool, lacking, t, floor=(0.28, 0.0, 0.05)) == []
    assert rank(pool, lacking, t, floor=(0.28, 0.0, 0.0))  # note 0 reaches the floor
    # a word no note holds is unknown, not lacked: its own step
    unknown = about(asked([0.3, 0.1, 0.0], {0}), [0.0, 0.0, 0.0])
    assert rank(pool, unknown, t, floor=(0.28, 0.0, 0.05))[0] == 0


def test_the_floor_and_its_step_are_chosen_together_left_out() -> None:
    # each project: a lookup whose word the notes hold, at cosine 0.4, and a question about
    # nothing stored naming a word no note holds, at 0.45: only a step answers the first and
    # not the second
    def project() -> tuple[Notes, list[Asked]]:
        nothing = about(asked([0.45, 0.1, 0.0], set()), [0.0, 0.0, 0.0])
        nothing.kind = ABSENT
        return notes(3), [about(asked([0.4, 0.1, 0.0], {0}), [1.0, 0.0, 0.0]), nothing]

    start = replace(Tuning(), same_n=0)
    chosen, left_out = floor_left_out([project(), project()], 100.0, start)
    assert all(f <= 0.4 and f + step > 0.45 for f, step, _ in chosen)
    assert [m.get("hit@1", m.get("nothing")) for _, m in left_out] == [100.0] * 4
    _, left_alone = floor_left_out([project(), project()], 100.0, start, [0.0], [0.0])
    assert [m.get("hit@1", m.get("nothing")) for _, m in left_alone] == [0.0, 100.0] * 2


def test_why_names_the_rule_that_keeps_the_expected_note_from_first_place() -> None:
    # note 0 is asked for; note 1, its successor through a link someone asserted, takes its
    # place (the superseded factor); the second lookup's note 2 is under the floor, first
    # without it; the third's note 1 is first in both channels; the fourth is answered
    pool = notes(3, supersedes=[(1, 0)])
    t = replace(Tuning(), same_n=0, supersede_share=0.0)
    yielded = asked([0.8, 0.7, 0.0], {0})
    under = asked([0.1, 0.0, 0.25], {2})
    lost = asked([0.6, 0.0, 0.8], {0})
    right = asked([0.0, 0.0, 0.8], {2})
    answered = why([(pool, [yielded, under, lost, right])], "lookup", t)
    assert [row["reasons"] for row in answered["questions"]] == [
        ["superseded"], ["floor"], ["channels"]]
    assert answered["reasons"] == {"superseded": 1, "floor": 1, "channels": 1}
    assert answered["asked"] == 4 and answered["not_first"] == 3
    # the fusion baseline (no rules, no floor) puts the closest first: notes 0, 2, and 2
    assert answered["fusion_first"] == {"superseded": 1, "floor": 1, "channels": 0}


def test_the_fusion_baseline_adds_min_max_cosine_and_bm25_over_the_kept_notes() -> None:
    pool = notes(3, texts=["billing worker port", "the redis prefix of the billing queue",
                           "deploy steps"])
    q = replace(asked([0.5, 0.45, 0.0], {1}), text="redis prefix")
    assert fusion(pool, q, Tuning())[0] == 1  # 1 + 0 against 0.9 + 1
    assert fusion(pool, replace(q, text="port"), Tuning())[:2] == [0, 1]


def test_a_word_held_by_notes_no_longer_live_counts_them_as_the_statement_does() -> None:
    # two live notes hold the word, and an archived one (the last column) holds it best: the
    # statement counts all three for the word's idf and divides by the archived note's score
    # (the stemmed index's share; the index of words as written finds none here)
    live = asked([0.5, 0.4, 0.0], {0})
    live.size = 4
    live.words = [word(4, content=[2.0, 1.0, 0.0, 4.0])]
    score, rare = lexical(live, {"content": 1.0})
    idf = (1.0 - AS_WRITTEN) * np.log(1.0 + (4 - 3 + 0.5) / (3 + 0.5))
    assert np.allclose(score, [idf * 0.5, idf * 0.25, 0.0])
    assert rare.tolist() == [0, 0, 0]  # three of four notes hold it: no rare word


def test_of_the_later_notes_a_note_yields_to_the_closest_to_the_query_ranks_first() -> None:
    # note 0 states a value; the write path linked it to the later notes 1 and 2 (mutual
    # cosine 0.6): 1 a look-alike on a sibling service, 2 the change, closer to the query; both
    # take note 0's score, 2 first, whichever id sorts first
    alike = np.eye(4)
    alike[1] = [0.6, 0.8, 0.0, 0.0]
    alike[2] = [0.6, 0.0, 0.8, 0.0]
    t = replace(Tuning(), w_exact=0.0, session_after=0.0, session_before=0.0)
    for order in ([0, 1, 2, 3], [0, 2, 1, 3]):
        pool = notes(4, inferred=[(1, 0), (2, 0)], vectors=alike)
        pool.order = np.asarray(order)
        assert rank(pool, asked([0.8, 0.4, 0.5, 0.0], {2}), t)[:3] == [2, 1, 0]


def test_a_note_yields_to_a_later_session_summary_of_its_subject_for_the_current_value() -> None:
    # note 0 states a value; note 1, a later session summary, states it changed among other
    # things (mutual cosine 0.3): asked for the current value among handoffs, the summary; a
    # summary without the entity, one too far from the query or a history question: note 0
    alike = np.eye(3)
    alike[1] = [0.3, np.sqrt(0.91), 0.0]
    t = replace(Tuning(), w_exact=0.0, session_after=0.0, session_before=0.0)
    kinds = ["general", "session_summary", "general"]
    step = {"rollout_step_hours": 2}
    pool = notes(3, vectors=alike, note_kinds=kinds, entities=[step, step, {}],
                 kinds={"rollout_step_hours": "setting"})
    q = asked([0.6, 0.5, 0.0], {1})
    q.contextual = True
    assert rank(pool, q, t)[:2] == [1, 0]
    assert rank(pool, replace(q, cosine=np.asarray([0.6, 0.4, 0.0])), t)[0] == 0
    assert rank(notes(3, vectors=alike, note_kinds=kinds), q, t)[0] == 0
    assert rank(pool, replace(q, history=True), t)[0] == 0


def test_a_hit_holding_an_identifier_inside_a_longer_token_is_relevant_unless_many_do() -> None:
    # "looker_scratch" inside "analytics.looker_scratch": the index finds no phrase, the text
    # holds it; relevant whatever its cosine, unless more than exact_df of the hits hold it
    t = replace(Tuning(), same_n=0)
    low = [0.3, 0.2, 0.1, 0.05, 0.04, 0.03, 0.02]
    inside = asked(low, {0}, holders=[[False] * 7], contains=[[True] + [False] * 6])
    assert rank(notes(7), inside, t, floor=(0.9, 0.0, 0.0))[0] == 0
    many = asked(low, {0}, holders=[[False] * 7], contains=[[True] * (t.exact_df + 1) + [False]])
    assert rank(notes(7), many, t, floor=(0.9, 0.0, 0.0)) == []
    assert rank(notes(7), asked(low, {0}), t, floor=(0.9, 0.0, 0.0)) == []


def test_asked_for_history_the_first_of_a_value_changed_twice_ranks_first() -> None:
    # 0 -> 1 -> 2, each change linked to the note it replaced; the newest is closest to the
    # question and too unlike the first to be its subject: the score passes down the chain
    vectors = np.asarray([[1.0, 0.0, 0.0], [0.7, 0.714, 0.0], [0.0, 1.0, 0.0]])
    pool = notes(3, inferred=[(1, 0), (2, 1)],
                 vectors=vectors / np.linalg.norm(vectors, axis=1, keepdims=True))
    q = replace(asked([0.3, 0.5, 0.8], {0}), kind="history", history=True)
    assert rank(pool, q, Tuning())[0] == 0
    assert rank(pool, replace(q, history=False), Tuning())[0] == 2


def test_asked_for_history_a_fix_yields_to_the_note_it_superseded() -> None:
    # note 2, a fix, set a new value and superseded note 0 (mutual cosine 0.8); a history
    # question words the change and finds the fix first: the note it replaced comes first.
    # Unlinked, or asked for the current value, the fix keeps its place
    vectors = np.asarray([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.8, 0.0, 0.6]])
    kinds = ["general", "mistake", "fix"]
    t = replace(Tuning(), w_exact=0.0, session_after=0.0, session_before=0.0)
    q = replace(asked([0.6, 0.1, 0.7], {0}), kind="history", history=True, before=True)
    assert rank(notes(3, inferred=[(2, 0)], vectors=vectors, note_kinds=kinds), q, t)[0] == 0
    assert rank(notes(3, vectors=vectors, note_kinds=kinds), q, t)[0] == 2
    assert rank(notes(3, inferred=[(2, 0)], vectors=vectors, note_kinds=kinds),
                replace(q, history=False, before=False), t)[0] == 2


def test_asked_for_the_value_before_a_named_one_the_note_that_set_it_yields() -> None:
    # 0 (20) -> 1 (40, was 20) -> 2 (60, was 40), each linked to the one it replaced; the
    # newest is closest to the question. "before we went to 40": the first note stating 40
    # yields (to note 0), not the best hit; "before we went to 60": the note stating 60 (to
    # note 1); a number no linked hit states: no note yields
    vectors = np.asarray([[1.0, 0.0, 0.0], [0.8, 0.6, 0.0], [0.64, 0.48, 0.6]])
    texts = ["pool size is 20", "pool size is 40 now (was 20)", "pool size is 60 now (was 40)"]
    pool = notes(3, inferred=[(1, 0), (2, 1), (2, 0)], vectors=vectors, texts=texts)
    t = replace(Tuning(), w_exact=0.0, session_after=0.0, session_before=0.0)
    q = replace(asked([0.5, 0.6, 0.7], {0}), kind="history", history=True, before=True)
    ranked = rank(pool, replace(q, text="pool size before we went to 40?"), t)
    assert ranked.index(0) < ranked.index(1)
    assert rank(pool, replace(q, text="pool size before we went to 60?"), t)[0] == 1
    assert rank(pool, replace(q, text="pool size before we went to 80?"), t)[0] == 2


def test_a_note_yields_to_a_later_one_restating_its_value_beside_another() -> None:
    # no link, no shared entity: note 0 states the day-one share, note 1 (later) restates it as
    # the value it replaced; note 2 (later still) restates it for another service; note 3 is
    # another subject
    pool = notes(4, texts=["production rollouts are staged: 10% of users on day one",
                           "day-one rollout is 5% now (was 10%) after the crash spike",
                           "the kiosk_bridge day-one rollout is 20% now (was 10%)",
                           "release 3.6.3 reached the internal track"])
    t = replace(Tuning(), w_exact=0.0, session_after=0.0, session_before=0.0)
    q = asked([0.6, 0.5, 0.45, 0.3], {1})
    q.text = "what share of users gets a new version on the first day of a rollout?"
    assert rank(pool, q, t)[:3] == [1, 0, 2]
    q.text = "who watches the first day of a rollout?"  # asks for no value
    assert rank(pool, q, t)[0] == 0
    q.history = True
    q.text = "what share of users got the first day of a rollout originally?"
    assert rank(pool, q, t)[0] == 0


def test_a_value_restated_by_a_note_naming_another_subject_word_does_not_count() -> None:
    pool = notes(2, texts=["session tokens expire after 30 minutes",
                           "export jobs expire after 45 minutes now (was 30 minutes)"])
    t = replace(Tuning(), w_exact=0.0, session_after=0.0, session_before=0.0)
    q = asked([0.6, 0.5], {0})
    q.text = "how long do session tokens last?"
    assert rank(pool, q, t)[0] == 0


def test_the_mirror_reads_a_notes_best_sentence_as_search_memory_does() -> None:
    """The vector channel, and the relevance floor, read 0.4 x the cosine + 0.6 x the best
    sentence's (SENTENCE_WHOLE): note 1's one sentence answers (0.9), note 0's whole is closer
    (0.5 against 0.45) but no sentence of it is (0.1); a note without sentences keeps its
    cosine."""
    pool = notes(3)
    q = asked([0.5, 0.45, 0.0], {1})
    t = replace(Tuning(), same_n=0, w_exact=0.0)
    anything = (-1.0, 0.0, 0.0)
    assert rank(pool, q, t, floor=anything)[:2] == [0, 1]  # no sentences stored: the cosine
    q.best = np.asarray([0.1, 0.9, np.nan])
    assert rank(pool, q, t, floor=anything)[:3] == [1, 0, 2]
    # 0.4 x 0.45 + 0.6 x 0.9 = 0.72 passes a floor of 0.6 that neither cosine reaches
    assert rank(pool, q, t, floor=(0.6, 0.0, 0.0))[0] == 1
    q.best = None
    assert rank(pool, q, t, floor=(0.6, 0.0, 0.0)) == []


def test_the_closest_hit_to_each_clause_takes_a_place_after_the_first() -> None:
    # the query is closest to notes 0-3; the second clause is closest to note 5, far below
    pool = notes(8)
    q = replace(asked([0.9, 0.85, 0.8, 0.75, 0.7, 0.5, 0.4, 0.3], {0, 5}),
                clauses=np.asarray([[0.9, 0.2, 0.3, 0.1, 0.1, 0.2, 0.1, 0.1],
                                    [0.1, 0.2, 0.1, 0.3, 0.2, 0.8, 0.1, 0.1]]))
    plain = replace(Tuning(), same_n=0)
    assert rank(pool, q, plain)[:4] == [0, 5, 1, 2]
    assert rank(pool, replace(q, clauses=np.zeros((0, 8))), plain)[:3] == [0, 1, 2]
