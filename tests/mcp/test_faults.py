"""Faults: Neo4j stopped under writes (a private server, never the shared one), a missing
embedding model, a broken LLM provider. Calls fail fast and cleanly or fall back; nothing is
half-written; the server recovers without a restart. The full run is `bench.faults`."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from fastmcp import FastMCP
from fastmcp.exceptions import ToolError

from bench import store
from bench.faults import run
from kg_brain.enrichment.embed import SentenceTransformerEmbedder
from kg_brain.root.app import Brain
from kg_brain.store.db import RETRY_ATTEMPTS, RETRY_FIRST_PAUSE_S, Database
from kg_brain.store.localdb import free_port
from kg_brain.surfaces.tools import build_server
from tests.support.brains import make_settings
from tests.support.mcp import call

NOTE = "The ingest pipeline batches Neo4j writes with UNWIND, 500 rows per transaction."


def test_neo4j_outage_fails_fast_and_the_server_recovers_without_a_restart(
        tmp_path: Path, embedder: SentenceTransformerEmbedder) -> None:
    report = run(tmp_path / "neo4j", tmp_path / "vault", embedder, timeout_s=3.0, outage_s=4.0,
                 writes_before=3)
    # calls fail while the server stops, is down or restarts, and a write on the just-restarted
    # server may pass the transaction timeout (cold caches on a loaded machine: retried until one
    # succeeds, recover_after_ready_s); none before the outage, none after the recovery
    assert report["calls_failed"] > 0 and report["by_phase"]["before"]["failed"] == 0, \
        report["by_phase"]
    assert report["failures_without_database_unavailable"] == 0, report["error_messages"]
    assert report["failures_with_internal_detail"] == 0
    assert report["failed_reads"] > 0
    # each of the RETRY_ATTEMPTS: a connect timeout and the driver's own retry window (half a
    # timeout), a second of slack; then the pauses between attempts (0.5 s, 1 s)
    bound = RETRY_ATTEMPTS * (report["timeout_s"] * 1.5 + 1) + RETRY_FIRST_PAUSE_S * 3
    assert report["failed_read_max_s"] <= bound
    assert report["failed_after_recovery"] == 0
    checks = report["integrity"]
    assert checks["acknowledged_missing"] == 0  # a write that failed in its commit may exist
    assert checks["committed_though_reported_failed"] <= checks["failed_adds"]
    assert checks["notes_without_embedding"] == checks["links_foreign_or_partial"] == 0
    assert checks["jobs_not_done"] == 0 and checks["queued_notes_not_mirrored"] == 0
    assert report["drained"]["mirror_jobs_done"] > 0


@pytest.mark.parametrize(("runtime", "says"), [
    ("torch", "embedding model could not be loaded"),
    ("onnx-int8", "EMBEDDING_MODEL=.*none is not one"),
])
def test_a_missing_embedding_model_is_a_clear_error_and_writes_nothing(
        db: Database, project: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        runtime: str, says: str) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    settings = make_settings(kg_brain_project=project, embedding_model=str(tmp_path / "none"),
                             embedding_runtime=runtime)
    server = build_server(Brain(settings, db=db))
    with pytest.raises(ToolError, match=says) as error:
        call(server, "add_memory", content=NOTE)
    assert "Traceback" not in str(error.value)
    assert store.project_footprint(db, project=project)["notes"] == 0


class Garbage(BaseHTTPRequestHandler):
    """An 'OpenAI-compatible' endpoint that answers every request with nonsense."""

    def do_POST(self) -> None:
        body = b"<html>502 upstream exploded</html>{{{"
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def garbage_llm() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Garbage)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()
    httpd.server_close()


@pytest.mark.parametrize("provider", ["garbage", "refused"])
def test_a_broken_llm_provider_falls_back_to_the_heuristic(
        provider: str, garbage_llm: str, db: Database, embedder: SentenceTransformerEmbedder,
        project: str) -> None:
    url = garbage_llm if provider == "garbage" else f"http://127.0.0.1:{free_port()}/v1"
    settings = make_settings(kg_brain_project=project, llm_provider="openai",
                             openai_base_url=url, llm_timeout_s=2, llm_max_retries=1)
    server: FastMCP = build_server(Brain(settings, db=db, embedder=embedder))
    call(server, "add_memory", content="Neo4j 5.26 is the LTS line; 2025.x needs Java 21.")
    saved = call(server, "add_memory", content=NOTE)
    note = call(server, "recall", zk_ids=[saved["zk_id"]])["notes"][0]
    assert note["content"] == NOTE and note["title"] and note["keywords"] and note["context"]
    counts = store.stress_note_counts(db, project=project)
    assert counts["notes"] == 2 and counts["without_embedding"] == 0
