"""The multi-project benchmark on a few hundred notes, so it never rots."""

from __future__ import annotations

import json
from pathlib import Path

from bench import report
from bench.projects import run
from bench.store import project_vectors
from kg_brain.domain.ranking import Tuning
from kg_brain.enrichment.embed import SentenceTransformerEmbedder
from kg_brain.root.app import Brain
from kg_brain.store.db import Database
from tests.support.brains import make_settings


def test_projects_bench_widens_the_fetch_as_the_share_shrinks(
        db: Database, embedder: SentenceTransformerEmbedder, tmp_path: Path) -> None:
    brain = Brain(make_settings(), db=db, embedder=embedder)
    result = run(brain, notes=60, projects=[5, 2], queries=4, keep=False)
    two, five = result["results"]
    assert (two["projects"], five["projects"]) == (2, 5)
    assert two["fixed"]["fetch"] == five["fixed"]["fetch"] == Tuning().fetch
    # the test database holds other tests' notes too, so the share is below 1/P: compare only;
    # 0 is a project too small for the index, which the exact scan answers alone
    widened = [entry["widening"]["fetch"] for entry in (two, five)]
    assert all(fetch == 0 or fetch >= Tuning().fetch for fetch in widened), widened
    assert widened[1] == 0 or widened[1] >= widened[0] > 0, widened
    for entry in (two, five):
        for mode in ("widening", "fixed"):
            assert entry[mode]["vector_recall_at_10_vs_exact"] >= 0.9
            assert entry[mode]["deep_search"]["n"] == 4
    assert not project_vectors(db, project=result["project"] + "-0")
    saved = tmp_path / "projects.json"
    saved.write_text(json.dumps(result))
    text = report.render([saved], tmp_path / "out")
    assert "| 2 (50%) |" in text and "| 5 (20%) |" in text
