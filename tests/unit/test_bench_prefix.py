"""A bench run deletes the projects it wrote only when they are named bench-*: a run under
another prefix must keep them, and says so before it writes anything."""

from __future__ import annotations

import pytest

from bench.retrieval import _run
from kg_brain.base.errors import InvalidInput
from kg_brain.base.settings import load_settings
from kg_brain.surfaces.cli.commands import build_parser


def test_a_run_under_another_prefix_must_keep_its_projects() -> None:
    args = build_parser().parse_args(["bench", "retrieval", "--suite", "coding", "--split",
                                      "tune", "--prefix", "mine"])
    with pytest.raises(InvalidInput, match="--keep or --reuse"):
        _run(args, load_settings())
