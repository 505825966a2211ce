"""The graph migration benchmark on a few dozen notes, so it never rots."""

from __future__ import annotations

from bench.upgrade import run
from kg_brain.enrichment.embed import Embedder
from kg_brain.store.db import Database
from tests.support.brains import make_brain


def test_upgrade_bench_migrates_an_old_graph_once(db: Database, embedder: Embedder,
                                                  project: str) -> None:
    brain = make_brain(db, embedder, link_top_k=3)
    result = run(brain, notes=60, project=project, seed=3)
    assert result["dry_run"]["changes"] == result["apply"]["changes"] > 0
    assert result["apply"]["mentions"] == 60 and result["apply"]["backup_mb"] is not None
    assert result["second_apply"]["changes"] == 0
    assert result["degree_after"]["similarity"]["max"] <= 3
