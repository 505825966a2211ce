"""The labelled link and kind sets are well formed, and the link bench scores them correctly."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from bench.links import DATA, LABELS, Outcome, link_scores, load_jsonl, render, report
from kg_brain.base.vocab import NoteKind

PAIRS = load_jsonl(DATA / "write_pairs.jsonl")
ROUND2 = load_jsonl(DATA / "write_pairs_r2.jsonl")
ROUND3 = load_jsonl(DATA / "write_pairs_r3.jsonl")
KINDS = load_jsonl(DATA / "note_kinds.jsonl")


def test_the_pair_set_covers_every_label_in_two_stratified_halves() -> None:
    assert len(PAIRS) >= 400
    counts = Counter(p["expected"] for p in PAIRS)
    assert set(counts) == set(LABELS)
    for label in ("FIXES", "SUPERSEDES", "CONTRADICTS", "EXTENDS", "RELATES_TO", "NONE",
                  "DUPLICATE"):
        assert counts[label] >= 30, label
        halves = Counter(p["half"] for p in PAIRS if p["expected"] == label)
        # even when written; removing pairs drawn from LoCoMo left them a few apart
        assert abs(halves["tune"] - halves["check"]) <= max(1, counts[label] // 10), label
    assert len({p["id"] for p in PAIRS}) == len(PAIRS)
    assert {p["about"] for p in PAIRS} == {"same", "different"}
    kinds = {k.value for k in NoteKind}
    for p in PAIRS:
        assert p["new"]["note_kind"] in kinds and p["existing"]["note_kind"] in kinds
    assert len({p["project"] for p in PAIRS}) >= 10


@pytest.mark.parametrize(("rounds", "size"), [((ROUND2,), 120), ((ROUND3, ROUND2), 150)],
                         ids=["second", "third"])
def test_the_later_rounds_are_split_per_label_as_the_first_was(
        rounds: tuple[list[dict[str, Any]], ...], size: int) -> None:
    # one random.Random(25) over the labels in sorted order; each label's pairs in file order,
    # shuffled, the first half (rounded up) tuning
    pairs = rounds[0]
    assert len(pairs) >= size
    rng = random.Random(25)
    for label in sorted({p["expected"] for p in pairs}):
        group = [p for p in pairs if p["expected"] == label]
        order = list(range(len(group)))
        rng.shuffle(order)
        tune = set(order[:(len(group) + 1) // 2])
        assert [p["half"] for p in group] == ["tune" if i in tune else "check"
                                              for i in range(len(group))], label
    assert {p["expected"] for p in pairs} >= {"SUPERSEDES", "FIXES", "NONE"}
    ids = [p["id"] for r in (*rounds, PAIRS) for p in r]
    assert len(set(ids)) == len(ids)
    kinds = {k.value for k in NoteKind}
    for p in pairs:
        assert p["new"]["note_kind"] in kinds and p["existing"]["note_kind"] in kinds
        assert p["about"] in {"same", "different"}


def test_the_kind_set_has_every_inferred_kind() -> None:
    assert len(KINDS) >= 80
    expected = Counter(k["expected"] for k in KINDS)
    assert set(expected) == {"fix", "mistake", "decision", "pattern", "open_thread",
                             "research", "project_context", "general"}


def outcome(expected: str, got: str, kinds: tuple[str, str] = ("general", "general"),
            half: str = "tune", about: str = "same") -> Outcome:
    return Outcome("p", half, expected, got, 0.5, "", kinds, about)


def test_precision_recall_and_forbidden_confusions_are_counted() -> None:
    outcomes = [outcome("FIXES", "FIXES"), outcome("FIXES", "RELATES_TO"),
                outcome("NONE", "FIXES"), outcome("NONE", "NONE"),
                outcome("RELATES_TO", "CONTRADICTS", ("fix", "decision"))]
    scores = link_scores(outcomes)
    assert scores["per_type"]["FIXES"] == {"precision": 0.5, "recall": 0.5, "f1": 0.5,
                                           "support": 2, "predicted": 2}
    assert scores["per_type"]["SUPPORTS"]["precision"] is None
    assert scores["confusion"]["NONE"]["FIXES"] == 1
    assert scores["contradicts_fix_decision"] == 1
    assert scores["accuracy"] == 0.4
    assert not scores["targets_met"]


def test_merges_of_different_notes_and_typed_links_between_different_things_are_counted() -> None:
    right = [outcome("SUPERSEDES", "SUPERSEDES"), outcome("DUPLICATE", "DUPLICATE"),
             outcome("NONE", "RELATES_TO", about="different")]
    assert link_scores(right)["targets_met"]
    wrong = [*right, outcome("NONE", "DUPLICATE", about="different"),
             outcome("RELATES_TO", "SUPERSEDES", about="different")]
    scores = link_scores(wrong)
    assert scores["wrong_merges"] == 1
    assert (scores["different_typed"], scores["different_pairs"]) == (1, 3)
    assert not scores["targets_met"]


def test_the_report_has_both_halves_and_renders_a_confusion_matrix() -> None:
    outcomes = [outcome("FIXES", "FIXES"), outcome("NONE", "NONE", half="check")]
    result = report(outcomes, [{"text": "TODO: add a test.", "expected": "open_thread",
                                "half": "tune"}], "heuristic")
    assert result["halves"]["tune"]["links"]["pairs"] == 1
    assert result["halves"]["all"]["links"]["pairs"] == 2
    assert result["halves"]["tune"]["kinds"]["accuracy"] == 1.0
    text = render(result)
    assert "== check: 1 pairs" in text and "confusion" in text


def test_a_split_reports_its_half_alone() -> None:
    tune = [outcome("FIXES", "FIXES"), outcome("NONE", "FIXES")]
    result = report(tune, [k for k in KINDS if k["half"] == "tune"], "heuristic", "tune")
    assert list(result["halves"]) == ["tune"] and result["split"] == "tune"
    assert result["halves"]["tune"]["links"]["pairs"] == 2
    assert "== check" not in render(result)
