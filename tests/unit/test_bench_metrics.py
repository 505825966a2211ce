"""Benchmark metrics and the numpy baseline's BM25, on rankings whose scores are known."""

from __future__ import annotations

import numpy as np
import pytest

from bench.baselines import BM25, min_max, tokens
from bench.coding import must_yield
from bench.coding_data import Question, Step
from bench.datasets import Corpus, Turn, split, split_corpora
from bench.datasets import Question as Asked
from bench.metrics import (
    floor_sweep,
    inverted,
    mean_scores,
    reciprocal_rank,
    score_expected,
    score_question,
    summarise,
)
from kg_brain.base.errors import InvalidInput


def test_hit_at_1_counts_only_an_expected_note_on_top() -> None:
    assert score_expected(["a", "b"], {"a"})["hit@1"] == 100.0
    assert score_expected(["b", "a"], {"a"})["hit@1"] == 0.0
    assert score_expected([], {"a"})["hit@1"] == 0.0


def test_mrr_is_the_reciprocal_rank_of_the_first_expected_note() -> None:
    assert score_expected(["x", "y", "b", "a"], {"a", "b"})["mrr"] == pytest.approx(1 / 3)
    assert reciprocal_rank(["x", "y"], {"a"}) == 0.0


def test_all_needed_requires_every_expected_note_within_k() -> None:
    scores = score_expected(["a", "x", "y", "b", "z"], {"a", "b"})
    assert scores["all@3"] == 0.0 and scores["all@5"] == 100.0
    assert score_expected(["b", "a"], {"a", "b"})["all@3"] == 100.0


def test_inverted_when_the_worse_note_ranks_first_or_alone() -> None:
    assert inverted(["old", "new"], better="new", worse="old")
    assert not inverted(["new", "old"], better="new", worse="old")
    assert inverted(["old", "x"], better="new", worse="old")
    assert not inverted(["x", "new"], better="new", worse="old")
    assert not inverted(["x"], better="new", worse="old")


def test_inverted_is_only_scored_for_questions_with_pairs() -> None:
    assert score_expected(["a"], {"a"})["inverted"] is None
    assert score_expected(["old", "new"], {"new"}, [("new", "old")])["inverted"] == 100.0
    assert score_expected(["new", "old"], {"new"}, [("new", "old")])["inverted"] == 0.0


def test_means_skip_metrics_a_question_does_not_have() -> None:
    rows = [("current_value", score_expected(["old", "new"], {"new"}, [("new", "old")])),
            ("lookup", score_expected(["a"], {"a"}))]
    result = summarise(rows, "by_type")
    assert result["overall"]["hit@1"] == 50.0 and result["overall"]["questions"] == 2
    assert result["overall"]["inverted"] == 100.0  # over the one question that has pairs
    assert "inverted" not in result["by_type"]["lookup"]
    assert mean_scores([]) == {"questions": 0}


def test_evidence_recall_counts_the_share_found_within_k() -> None:
    ranked = ["e1"] + [f"x{i}" for i in range(8)] + ["e2"] + [f"y{i}" for i in range(20)]
    scores = score_question(ranked, {"e1", "e2", "e3"})
    assert scores["recall@5"] == pytest.approx(100 / 3)
    assert scores["recall@10"] == pytest.approx(200 / 3)
    assert scores["hit@10"] == 0.0 and scores["mrr"] == 1.0


def test_symptom_questions_pair_each_expected_fix_with_its_mistake() -> None:
    steps = {"fail": Step("fail", "record_failure", "boom"),
             "fix": Step("fix", "record_resolution", "fixed", failure="fail"),
             "old": Step("old", "add_memory", "port 1"), "new": Step("new", "add_memory", "port 2")}
    assert must_yield(Question("why boom", "symptom_fix", ["fix", "fail"]), steps) == \
        [("fix", "fail")]
    assert must_yield(Question("port?", "current_value", ["new"], ["old"]), steps) == \
        [("new", "old")]
    assert must_yield(Question("fix only", "lookup", ["fix"]), steps) == []


def test_tokens_drop_stop_words_and_reduce_plurals() -> None:
    assert tokens("The retries of the Timeouts") == ["retry", "timeout"]
    assert tokens("class status pass process") == ["class", "status", "pass", "process"]


def test_bm25_prefers_more_occurrences_of_rarer_terms() -> None:
    bm25 = BM25(["redis timeout in the worker", "redis redis cache", "worker pool sizing",
                 "postgres pool timeout timeout"])
    scores = bm25.scores("timeout")
    assert scores[3] > scores[0] > 0 and scores[1] == scores[2] == 0
    both = bm25.scores("redis pool")
    assert both[1] > both[0]  # two occurrences beat one
    assert bm25.scores("unknown words").sum() == 0.0


def test_bm25_normalises_for_document_length() -> None:
    bm25 = BM25(["cache miss", "cache miss " + "padding words here " * 10])
    scores = bm25.scores("cache")
    assert scores[0] > scores[1] > 0


def test_min_max_maps_to_unit_range_and_flat_to_zero() -> None:
    assert np.allclose(min_max(np.array([2.0, 4.0, 3.0])), [0.0, 1.0, 0.5])
    assert np.allclose(min_max(np.array([5.0, 5.0])), [0.0, 0.0])


def test_split_halves_by_a_fixed_seed_in_order() -> None:
    items = list(range(7))
    tune, check = split(items, "tune"), split(items, "check")
    assert sorted(tune + check) == items and not set(tune) & set(check)
    assert len(tune) == 3 and tune == sorted(tune) and check == sorted(check)
    assert split(items, "tune") == tune and split(items, "all") == items
    assert split(items, "tune", seed=1) != tune or split(items, "tune", seed=2) != tune
    with pytest.raises(InvalidInput):
        split(items, "holdout")


def test_a_pooled_corpus_splits_its_questions_and_keeps_every_passage() -> None:
    corpus = Corpus(turns=[Turn((0, i), "t", str(i), "", 0) for i in range(4)],
                    questions=[Asked(str(i), "2hop", [(0, i % 4)]) for i in range(10)])
    tune, = split_corpora([corpus], "tune", by_question=True)
    check, = split_corpora([corpus], "check", by_question=True)
    assert tune.turns == check.turns == corpus.turns
    assert len(tune.questions) + len(check.questions) == 10
    assert not {q.text for q in tune.questions} & {q.text for q in check.questions}
    assert split_corpora([corpus, corpus, corpus, corpus], "check", by_question=False) \
        == [corpus, corpus]


def test_floor_sweep_trades_answers_for_silence() -> None:
    normal = [(0.6, 100.0), (0.3, 100.0), (0.2, 0.0), (None, 0.0)]
    absent = [0.1, 0.25, None]
    rows = {r["floor"]: r for r in floor_sweep(normal, absent, floors=(0.0, 0.2, 0.35))}
    assert rows[0.0] == {"floor": 0.0, "absent_nothing": 33.33, "hit@1": 50.0}
    assert rows[0.2]["absent_nothing"] == 66.67 and rows[0.2]["hit@1"] == 50.0
    assert rows[0.35]["absent_nothing"] == 100.0 and rows[0.35]["hit@1"] == 25.0
