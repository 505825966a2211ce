"""The coding benchmark end to end on a trimmed shipped project: replay through the real write
path, the questions through every method, the bench project removed afterwards."""

from __future__ import annotations

import json
import uuid
from dataclasses import replace
from datetime import datetime
from pathlib import Path

from bench.baselines import Baselines, Fusion
from bench.coding import (
    ReplayClock,
    replay,
    report,
    run_coding,
)
from bench.coding_data import CodingProject, Step, shipped_projects
from bench.coding_lookalikes import dates, lookalikes, schedule
from bench.common import delete_bench_project
from bench.methods import METHODS, build, unfloored
from bench.store import project_vectors, stress_jobs
from kg_brain.domain.search import Search
from kg_brain.enrichment.embed import SentenceTransformerEmbedder
from kg_brain.root.app import Brain
from kg_brain.store.db import Database
from tests.support.brains import make_brain

KEYS = {"stack", "api-port", "fail-postgis", "fix-postgis", "decision-zpl", "session-zpl",
        "api-port-new", "research-orjson", "decision-orjson"}
LOOKALIKES = 8


def _small() -> CodingProject:
    """A few real notes of one shipped project, and the questions they answer."""
    full = shipped_projects(["harborline"])[0]
    questions = [q for q in full.questions if set(q.expected + q.outdated) <= KEYS]
    return replace(full, notes=[s for s in full.notes if s.key in KEYS], questions=questions)


def _brain(db: Database, embedder: SentenceTransformerEmbedder) -> tuple[Brain, ReplayClock]:
    clock = ReplayClock()
    return make_brain(db, embedder, clock=clock), clock


def test_replay_writes_through_the_tools_in_schedule_order(
        db: Database, embedder: SentenceTransformerEmbedder) -> None:
    data = _small()
    rewrite = Step("api-port-docs", "update_memory", "tracking-api listens on port 8040 in "
                   "development (uvicorn --port 8040); the Compose file maps it to "
                   "localhost:8040, the frontend's VITE_API_URL points there, and its OpenAPI "
                   "page is at localhost:8040/docs.", target="api-port")
    notes = [*data.notes[:3], rewrite, *data.notes[3:]]
    brain, clock = _brain(db, embedder)
    steps = schedule(notes, lookalikes(data, LOOKALIKES, seed=3), seed=3)
    start = datetime.fromisoformat(data.start)
    times = dates(steps, start, seed=3)
    project = f"bench-coding-test-{uuid.uuid4().hex[:8]}"
    try:
        written = replay(brain, clock, steps, times, project)
        stored = {n.zk_id: n for n in brain.reader.get(list(written.ids.values()))}
        fix, failure = stored[written.ids["fix-postgis"]], stored[written.ids["fail-postgis"]]
        assert fix.note_kind == "fix" and failure.note_kind == "mistake"
        assert failure.memory_type == "permanent"  # promoted by the resolution
        assert any(link.type == "FIXES" and link.zk_id == failure.zk_id for link in fix.links)
        assert stored[written.ids["session-zpl"]].note_kind == "session_summary"
        assert stored[written.ids["decision-zpl"]].note_kind == "general"  # as the data says
        assert written.ids[rewrite.key] == written.ids["api-port"]
        assert "OpenAPI page" in stored[written.ids["api-port"]].content
        created = [datetime.fromisoformat(str(stored[written.ids[s.key]].created))
                   for s in steps if s.tool != "update_memory"]
        assert created == [t for s, t in zip(steps, times, strict=True)
                           if s.tool != "update_memory"]
        assert written.merged_real == []
        jobs = stress_jobs(db, project=project, kind="evolve")
        assert jobs and all(j["state"] == "done" for j in jobs)  # drained before questions
        assert written.evolution_jobs == len(jobs) >= written.evolution_applied > 0
    finally:
        delete_bench_project(db, project)


def test_coding_suite_scores_every_method_and_cleans_up(
        db: Database, embedder: SentenceTransformerEmbedder) -> None:
    data = _small()
    assert {q.type for q in data.questions} >= {"current_value", "symptom_fix", "multi_note"}
    brain, clock = _brain(db, embedder)
    calls = build(brain.search, Search(brain.deps, **unfloored(brain.search)),
                  Baselines(brain.deps), Fusion(brain.deps), hops=2, depth=10)
    run_id = uuid.uuid4().hex[:8]
    result = run_coding(brain, [data], calls, clock, run_id, LOOKALIKES, seed=3, keep=False)
    stats = result["projects"]["harborline"]
    assert stats["real_notes"] == len(KEYS) + 1  # the session writes a summary and a thread
    assert stats["lookalike_notes"] >= LOOKALIKES and stats["merged_real"] == []
    for name in METHODS:
        body = result["methods"][name]
        assert body["overall"]["questions"] == len(data.questions)
        assert set(body["by_type"]) == {q.type for q in data.questions}
        assert "inverted" in body["by_type"]["current_value"]
        assert body["latency_ms"]["p50"] > 0
    assert result["methods"]["fusion"]["overall"]["all@5"] > 0
    assert len(result["questions"]) == len(data.questions)
    assert set(result["questions"][0]["ranks"]) == set(METHODS)
    assert "fusion" in report(result) and "inverted" in report(result)
    absent = result["methods"]["search_memory_nofloor"]["absent"]
    assert absent["questions"] == len(data.absent) and absent["answered_nothing"] == 0.0
    sweep = result["methods"]["search_memory_nofloor"]["floor_sweep"]
    assert sweep[0]["floor"] == 0.0 and sweep[-1]["absent_nothing"] >= sweep[0]["absent_nothing"]
    fused = result["methods"]["fusion"]  # no floor of its own; what one would do, swept
    assert fused["absent"]["answered_nothing"] == 0.0
    assert fused["floor_sweep"][-1]["absent_nothing"] > fused["floor_sweep"][0]["absent_nothing"]
    assert "fusion                  floor 0.60" in report(result)
    assert not project_vectors(db, project=stats["project"])


def test_a_coding_manifest_is_questioned_again_without_writing(
        db: Database, embedder: SentenceTransformerEmbedder, tmp_path: Path) -> None:
    data, manifest = _small(), tmp_path / "manifest.json"
    brain, clock = _brain(db, embedder)
    calls = {"fusion": build(brain.search, brain.search, Baselines(brain.deps),
                             Fusion(brain.deps), hops=2, depth=10)["fusion"]}
    first = run_coding(brain, [data], calls, clock, uuid.uuid4().hex[:8], LOOKALIKES, seed=3,
                       keep=False, reuse=manifest)
    written = json.loads(manifest.read_text())["harborline"]
    try:
        assert first["projects"]["harborline"]["write_s"] > 0
        again = run_coding(brain, [data], calls, clock, uuid.uuid4().hex[:8], LOOKALIKES,
                           seed=3, keep=False, reuse=manifest)
        assert again["projects"]["harborline"]["project"] == written["project"]
        assert again["projects"]["harborline"]["write_s"] == 0.0  # read, not replayed
        assert again["methods"]["fusion"]["overall"] == first["methods"]["fusion"]["overall"]
    finally:
        delete_bench_project(db, written["project"])
