"""The scale benchmark and the report generator on a few hundred notes, so they never rot."""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from bench import report, scale
from bench.common import delete_bench_project
from bench.scale import run
from kg_brain.enrichment.embed import SentenceTransformerEmbedder
from kg_brain.store.db import Database
from tests.support.brains import make_brain, settings_for


def test_scale_bench_and_report_on_a_tiny_corpus(
    db: Database, embedder: SentenceTransformerEmbedder, tmp_path: Path
) -> None:
    brain = make_brain(db, embedder)
    saved: list[int] = []
    result = run(brain, sizes=[300, 400], projects=4, queries=4, add_share=0.1, warmup_s=0.5,
                 profile=True, mcp_queries=3, save=lambda r: saved.append(len(r["sizes"])))
    try:
        assert saved == [1, 2]  # the result so far, after each size
        first, entry = result["sizes"]["300"], result["sizes"]["400"]
        assert sum(first["project_notes"].values()) == 300
        notes = entry["project_notes"]
        assert sum(notes.values()) == 400 and max(notes.values()) == 200
        assert entry["graph"]["notes"] == 400 and entry["graph"]["follows"] > 0
        assert entry["graph"]["mentions"] > 0
        assert entry["imported"] + sum(s["n"] for s in entry["add_memory"].values()) <= 100
        assert entry["bulk_import_notes_per_s"] > 0 and entry["import_to_raw_ratio"] > 0
        cpu = entry["import_cpu_s"]  # this process's CPU during the import; no server pid given
        assert cpu["kg_brain"] > 0 and cpu["raw_embedding_of_as_many"] > 0
        assert cpu["server"] is None
        assert entry["embedding_runtime"] == embedder.runtime  # raw figure from the app's embedder
        for name in ("search_memory", "deep_search"):
            for where in ("largest", "other"):
                stats = entry[name][where]
                assert stats["db"]["n"] == 4
                assert stats["db"]["p50_ms"] <= stats["total"]["p50_ms"]
                assert entry["ratios"][f"{name}_{where}"] > 0
        assert entry["floor"]["raw_fulltext_query"]["n"] == 4
        for where, adds in entry["add_memory"].items():  # each add beside one write's floor
            floors = entry["add_memory_write_floor"][where]
            assert floors["floor"]["n"] == floors["floor_content"]["n"] == adds["n"]
            assert entry["ratios"][f"add_memory_{where}_to_write_floor"] > 0
        assert entry["profile"]["deep_search.smallest"]["db_hits"] > 0
        mcp = entry["mcp_search"]  # one MCP session against the HTTP server, call by call
        assert mcp["project"] == result["projects"][0]
        for part in ("end_to_end", "db", "raw_vector_query"):
            assert mcp[part]["n"] == 3 and mcp[part]["p50_ms"] <= mcp[part]["p95_ms"]
        assert mcp["end_to_end"]["p50_ms"] > mcp["db"]["p50_ms"] * 0.5
        assert mcp["to_floor"]["end_to_end_p95"] >= mcp["to_floor"]["end_to_end_p50"] > 0
        scale_file = tmp_path / "scale.json"
        scale_file.write_text(json.dumps(result))
        retrieval_file = tmp_path / "retrieval.json"
        retrieval_file.write_text(json.dumps({"methods": {"vector": {
            "overall": {**dict.fromkeys(report.METRICS, 50.0), "mrr": 0.5},
            "by_category": {"1": {**dict.fromkeys(report.METRICS, 25.0), "mrr": 0.25}}}}}))
        text = report.render([scale_file, retrieval_file], tmp_path / "out")
        assert "| bulk import, notes/s |" in text and "| vector | 50.0 |" in text
        assert "| 0.500 |" in text and "| vector | 25.0 |" in text
        for png in ("scale-latency.png", "scale-throughput.png", "retrieval-recall10.png"):
            assert (tmp_path / "out" / png).stat().st_size > 1000
    finally:
        for project in result["projects"]:
            delete_bench_project(db, project)


def test_scale_bench_ends_with_clients_at_once_in_the_largest_project(
        db: Database, tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    scale.add_parser(parser.add_subparsers())
    out = tmp_path / "scale.json"
    args = parser.parse_args(["scale", "--notes", "150", "--projects", "3", "--queries", "2",
                              "--warmup-seconds", "0.2", "--add-share", "0.05", "--clients", "3",
                              "--load-seconds", "4", "--configured", "--out", str(out)])
    assert args.handler(args, settings_for(db)) == 0
    clients = json.loads(out.read_text())["clients"]
    assert clients["at_notes"] == 150 and clients["clients"] == 3
    writes = clients["writes"]
    assert writes["writes_acknowledged"] > 0 and writes["lost_writes"] == 0, clients
    # the 75 notes the project held before the clients came are not counted as their writes
    assert writes["notes_stored"] <= writes["writes_acknowledged"], clients
    assert writes["stored_but_unacknowledged"] == 0, clients


def test_a_terminated_scale_bench_stops_its_private_server() -> None:
    bench = subprocess.Popen(
        [sys.executable, "-m", "kg_brain.surfaces.cli", "bench", "scale", "--notes", "100000",
         "--out", os.devnull], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert bench.stderr is not None
    pid = None
    for line in bench.stderr:  # the private server's pid, logged as it starts
        found = re.search(r"Neo4j starting \(pid (\d+)\)", line)
        if found:
            pid = int(found.group(1))
            break
    assert pid is not None, "the bench started no private server"
    bench.send_signal(signal.SIGTERM)
    bench.communicate(timeout=120)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and _alive(pid):
        time.sleep(0.5)
    assert not _alive(pid), "the private Neo4j outlived the bench"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
