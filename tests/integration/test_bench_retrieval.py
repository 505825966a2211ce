"""The retrieval benchmark harness end to end on a tiny LoCoMo-format file, so it never rots."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.baselines import Baselines, Fusion
from bench.common import delete_bench_project
from bench.datasets import dia_keys, load_locomo
from bench.methods import METHODS, Method, build, unfloored
from bench.retrieval import DEPTH, merge_write_paths, report, run_corpora
from bench.store import project_vectors, stress_jobs
from kg_brain.domain.search import Search
from kg_brain.enrichment.embed import SentenceTransformerEmbedder
from kg_brain.root.app import Brain
from kg_brain.store.db import Database
from tests.support.brains import make_brain

TOPICS = ["hiking in the alps", "a new puppy named Biscuit", "learning the violin",
          "a pottery class", "moving to Lisbon", "a marathon in spring"]


def _conversation(a: str, b: str) -> dict[str, object]:
    conv: dict[str, object] = {"speaker_a": a, "speaker_b": b}
    for s in (1, 2):
        conv[f"session_{s}_date_time"] = f"10:00 am on {s} May, 2023"
        conv[f"session_{s}"] = [
            {"speaker": a if t % 2 else b, "dia_id": f"D{s}:{t}",
             "text": f"I have been thinking about {TOPICS[(s * 3 + t) % len(TOPICS)]} lately."}
            for t in range(1, 7)
        ]
    conv["session_3_date_time"] = "no turns here"
    cast = conv["session_1"]
    assert isinstance(cast, list)
    cast[0]["blip_caption"] = "a photo of a red bicycle"
    return {
        "sample_id": "x", "conversation": conv,
        "qa": [
            {"question": "Who has a puppy?", "answer": "x", "evidence": ["D1:1"], "category": 4},
            {"question": "What about the violin and pottery?", "answer": "x",
             "evidence": ["D1:2; D2:05"], "category": 1},
            {"question": "Who shared a bicycle photo?", "answer": "x", "evidence": ["D:1:1"],
             "category": 2},
            {"question": "Unanswerable?", "answer": "x", "evidence": [], "category": 3},
        ],
    }


def _brain_and_methods(db: Database,
                       embedder: SentenceTransformerEmbedder) -> tuple[Brain, dict[str, Method]]:
    brain = make_brain(db, embedder)
    return brain, build(brain.search, Search(brain.deps, **unfloored(brain.search)),
                        Baselines(brain.deps), Fusion(brain.deps), hops=2, depth=DEPTH)


def test_evidence_ids_tolerate_the_format_quirks() -> None:
    assert dia_keys("D8:6; D9:17") == [(8, 6), (9, 17)]
    assert dia_keys("D:11:26") == [(11, 26)] and dia_keys("D30:05") == [(30, 5)]
    assert dia_keys("D1:2 D1:3") == [(1, 2), (1, 3)]


def test_bench_runs_on_a_small_locomo_file(tmp_path: Path, db: Database,
                                           embedder: SentenceTransformerEmbedder) -> None:
    data = tmp_path / "tiny.json"
    data.write_text(json.dumps([_conversation("Ana", "Ben"), _conversation("Cy", "Di")]))
    corpora = load_locomo(data)
    assert len(corpora[0].turns) == 12 and "shared a photo of a red bicycle" in \
        corpora[0].turns[0].text
    brain, calls = _brain_and_methods(db, embedder)
    result = run_corpora(brain, calls, corpora, keep=False, with_reply=True)
    for name in METHODS:
        body = result["methods"][name]
        assert body["overall"]["questions"] == 6  # the no-evidence question is left out
        assert set(body["by_category"]) == {"1", "2", "4"}
        assert set(body["overall"]) >= {"recall@5", "recall@10", "recall@25", "hit@10", "mrr"}
        if name not in ("search_memory", "deep_search"):  # these may answer nothing (floor)
            assert body["overall"]["recall@25"] == 100.0  # 12 notes: all in the top 25
        assert body["latency_ms"]["p50"] > 0
    for name in ("search_memory", "deep_search"):
        assert result["methods"][name]["overall"]["recall@25"] <= \
            result["methods"][f"{name}_nofloor"]["overall"]["recall@25"]
    assert "deep_search" in report(result)


def test_bench_reuses_imported_projects(tmp_path: Path, db: Database,
                                        embedder: SentenceTransformerEmbedder) -> None:
    data = tmp_path / "tiny.json"
    data.write_text(json.dumps([_conversation("Ana", "Ben")]))
    corpora, manifest = load_locomo(data), tmp_path / "manifest.json"
    brain, every = _brain_and_methods(db, embedder)
    calls = {"vector": every["vector"]}
    first = run_corpora(brain, calls, corpora, keep=False, with_reply=True, reuse=manifest)
    entries = json.loads(manifest.read_text())
    try:
        assert len(entries) == 1 and len(entries[0]["ids"]) == 12
        again = run_corpora(brain, calls, corpora, keep=False, with_reply=True, reuse=manifest)
        assert again["methods"]["vector"]["overall"] == first["methods"]["vector"]["overall"]
        assert json.loads(manifest.read_text()) == entries  # read, not re-imported
    finally:
        delete_bench_project(db, entries[0]["project"])


def test_add_write_path_builds_the_graph_add_memory_builds(
        tmp_path: Path, db: Database, embedder: SentenceTransformerEmbedder) -> None:
    data = tmp_path / "tiny.json"
    data.write_text(json.dumps([_conversation("Ana", "Ben")]))
    corpora = load_locomo(data)
    brain, every = _brain_and_methods(db, embedder)
    calls = {m: every[m] for m in ("search_memory", "fusion")}
    manifest = tmp_path / "manifest.json"
    added = run_corpora(brain, calls, corpora, keep=False, with_reply=True, reuse=manifest,
                        write_path="add")
    [entry] = json.loads(manifest.read_text())
    project = entry["project"]
    try:
        assert entry["write_path"] == "add" and "-add-" in project
        ids = sorted({z for _, _, z in entry["ids"]})
        notes = brain.reader.get(ids)
        assert all(" May, 2023): " in n.content for n in notes)  # speaker and session date
        assert all(n.title and n.keywords for n in notes)  # enriched on write
        assert any(n.links for n in notes)  # linked by add_memory, not by the import
        jobs = stress_jobs(db, project=project, kind="evolve")
        assert all(j["state"] == "done" for j in jobs)
        assert added["methods"]["fusion"]["overall"]["questions"] == 3
    finally:
        delete_bench_project(db, project)
    assert not stress_jobs(db, project=project, kind="evolve")
    both = merge_write_paths({"import": added, "add": added})
    assert list(both["methods"]) == ["search_memory@import", "search_memory@add",
                                     "fusion@import", "fusion@add"]


def _written(db: Database, brain: Brain,
             manifest: Path) -> dict[str, tuple[str, list[float], list[tuple[str, str, str]]]]:
    """What a write stored, by turn: context, vector and links (the other note as a turn)."""
    [entry] = json.loads(manifest.read_text())
    turn = {z: f"{s}:{t}" for s, t, z in entry["ids"]}
    vectors = {v["zk_id"]: v["embedding"] for v in project_vectors(db, project=entry["project"])}
    return {turn[n.zk_id]: (n.context, vectors[n.zk_id],
                            sorted((link.type, link.direction, turn[link.zk_id])
                                   for link in n.links))
            for n in brain.reader.get(sorted(turn))}


def test_two_writes_under_one_run_id_store_the_same_notes(
        tmp_path: Path, db: Database, embedder: SentenceTransformerEmbedder) -> None:
    """Each note's context names its project and is embedded: under one run id, one write after
    the other, add_memory's notes, evolved contexts, vectors and links come out the same; a
    write into a project that still holds a run's notes is refused."""
    data = tmp_path / "tiny.json"
    data.write_text(json.dumps([_conversation("Ana", "Ben")]))
    corpora = load_locomo(data)
    brain, every = _brain_and_methods(db, embedder)
    calls = {"vector": every["vector"]}
    first, second = tmp_path / "first.json", tmp_path / "second.json"

    def write(manifest: Path) -> None:
        run_corpora(brain, calls, corpora, keep=False, with_reply=True, reuse=manifest,
                    write_path="add", prefix="bench-twice", run="same")

    write(first)
    project = json.loads(first.read_text())[0]["project"]
    try:
        stored = _written(db, brain, first)
        assert any(links for _, _, links in stored.values())
        with pytest.raises(ValueError, match="already holds notes"):
            write(second)
        delete_bench_project(db, project)
        write(second)
        assert json.loads(second.read_text())[0]["project"] == project
        assert _written(db, brain, second) == stored
    finally:
        delete_bench_project(db, project)
