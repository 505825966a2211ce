"""The retrieval benchmark harness end to end on a tiny LoCoMo-format file, so it never rots."""

from __future__ import annotations

import json
from pathlib import Path

from kg_brain.bench.common import delete_bench_project
from kg_brain.bench.datasets import dia_keys, load_locomo
from kg_brain.bench.retrieval import METHODS, report, run_corpora
from kg_brain.db import Database
from kg_brain.embed import SentenceTransformerEmbedder
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
    brain = make_brain(db, embedder)
    search = brain.search
    result = run_corpora(brain, search, corpora, list(METHODS), hops=2, keep=False,
                         with_reply=True)
    for name in METHODS:
        body = result["methods"][name]
        assert body["overall"]["questions"] == 6  # the no-evidence question is left out
        assert set(body["by_category"]) == {"1", "2", "4"}
        assert set(body["overall"]) >= {"recall@5", "recall@10", "recall@25", "hit@10", "mrr"}
        assert body["overall"]["recall@25"] == 100.0  # 12 notes: everything is in the top 25
        assert body["latency_ms"]["p50"] > 0
    assert "deep_search" in report(result)


def test_bench_reuses_imported_projects(tmp_path: Path, db: Database,
                                        embedder: SentenceTransformerEmbedder) -> None:
    data = tmp_path / "tiny.json"
    data.write_text(json.dumps([_conversation("Ana", "Ben")]))
    corpora, manifest = load_locomo(data), tmp_path / "manifest.json"
    brain = make_brain(db, embedder)
    search = brain.search
    first = run_corpora(brain, search, corpora, ["vector"], hops=2, keep=False,
                        with_reply=True, reuse=manifest)
    entries = json.loads(manifest.read_text())
    try:
        assert len(entries) == 1 and len(entries[0]["ids"]) == 12
        again = run_corpora(brain, search, corpora, ["vector"], hops=2, keep=False,
                            with_reply=True, reuse=manifest)
        assert again["methods"]["vector"]["overall"] == first["methods"]["vector"]["overall"]
        assert json.loads(manifest.read_text()) == entries  # read, not re-imported
    finally:
        delete_bench_project(db, entries[0]["project"])
