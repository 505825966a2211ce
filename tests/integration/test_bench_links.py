"""The link bench writes each pair into a project named by the pair, so two runs of the same
code embed the same texts and agree."""

from __future__ import annotations

import uuid

import pytest

from bench.common import delete_bench_project
from bench.links import decide, pair_project
from bench.store import project_footprint
from kg_brain.root.app import Brain


def _pair() -> dict[str, object]:
    return {"id": f"t-{uuid.uuid4().hex[:8]}", "half": "tune", "expected": "SUPERSEDES",
            "about": "same",
            "existing": {"content": "The nightly export of the ledger runs at 02:30 UTC.",
                         "note_kind": "general"},
            "new": {"content": "The nightly ledger export now runs at 04:00 UTC, after the "
                               "backup window.", "note_kind": "general"}}


def test_two_runs_of_one_pair_write_the_same_notes_and_score_alike(brain: Brain) -> None:
    pair = _pair()
    first, second = decide(brain, [pair]), decide(brain, [pair])
    assert first[0].score is not None
    assert (first[0].got, first[0].score) == (second[0].got, second[0].score)
    assert project_footprint(brain.db, project=pair_project(pair))["notes"] == 0


def test_a_pair_whose_project_holds_notes_is_refused(brain: Brain) -> None:
    pair = _pair()
    project = pair_project(pair)
    brain.writer.add("A note another run left behind.", project)
    try:
        with pytest.raises(RuntimeError, match="holds notes"):
            decide(brain, [pair])
    finally:
        delete_bench_project(brain.db, project)
