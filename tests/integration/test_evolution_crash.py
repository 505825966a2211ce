"""Evolution survives a crash: the queue lives in Neo4j and a job applies exactly once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from datetime import timedelta

from kg_brain.app import utc_now
from kg_brain.db import Database
from kg_brain.embed import SentenceTransformerEmbedder
from kg_brain.llm import build_enricher
from kg_brain.memory import Memory
from kg_brain.settings import load_settings
from tests.conftest import ServerUnderTest

WRITER = textwrap.dedent("""
    import json, os, signal, sys
    from datetime import timedelta
    from kg_brain.app import utc_now
    from kg_brain.db import Connection, Database
    from kg_brain.embed import SentenceTransformerEmbedder
    from kg_brain.llm import build_enricher
    from kg_brain.memory import Memory
    from kg_brain.settings import load_settings
    settings = load_settings()
    db = Database(Connection(os.environ["NEO4J_URI"], "neo4j", os.environ.get("NEO4J_PASSWORD"),
                             "neo4j"))
    emb = SentenceTransformerEmbedder()
    memory = Memory(settings, db, emb, build_enricher(settings), utc_now)
    project = sys.argv[1]
    first = memory.add("Flaky CI runs come from tests sharing one Neo4j database without "
                       "project isolation.", project)
    second = memory.add("Give every test its own project namespace so flaky CI runs caused by "
                        "a shared Neo4j database go away.", project)
    if sys.argv[2] == "claim":
        memory.db.write("jobs/claim_jobs", kind="evolve", now=utc_now(), limit=10,
                        until=utc_now() + timedelta(minutes=2), worker="doomed")
    sys.stdout.write(json.dumps([first.note.zk_id, second.note.zk_id]) + "\\n")
    sys.stdout.flush()
    os.kill(os.getpid(), signal.SIGKILL)  # dies before any evolution runs
""")


def _crash_writer(server: ServerUnderTest, project: str, mode: str) -> list[str]:
    env = {**os.environ, "NEO4J_URI": server.conn.uri, "NEO4J_PASSWORD": server.conn.password or ""}
    proc = subprocess.run([sys.executable, "-c", WRITER, project, mode], env=env,
                          capture_output=True, text=True, timeout=180, check=False)
    assert proc.returncode == -signal.SIGKILL, proc.stderr[-2000:]
    return list(json.loads(proc.stdout.strip().splitlines()[-1]))


def _memory(db: Database, embedder: SentenceTransformerEmbedder, later: timedelta) -> Memory:
    settings = load_settings()
    return Memory(settings, db, embedder, build_enricher(settings),
                  lambda: utc_now() + later)


def test_evolution_queued_before_a_crash_completes_once_after_restart(
    neo4j_server: ServerUnderTest, db: Database, embedder: SentenceTransformerEmbedder,
    project: str,
) -> None:
    first, _ = _crash_writer(neo4j_server, project, "queue")
    memory = _memory(db, embedder, timedelta())
    assert not memory.revisions(first)
    while memory.process_evolution():
        pass
    assert len(memory.revisions(first)) == 1
    assert memory.process_evolution() == 0
    assert len(memory.revisions(first)) == 1


def test_a_crashed_workers_claim_expires_and_the_job_runs_once(
    neo4j_server: ServerUnderTest, db: Database, embedder: SentenceTransformerEmbedder,
    project: str,
) -> None:
    first, _ = _crash_writer(neo4j_server, project, "claim")
    now_memory = _memory(db, embedder, timedelta())
    now_memory.process_evolution()
    assert not now_memory.revisions(first), "a live claim must not be taken over"
    later = _memory(db, embedder, timedelta(minutes=5))
    while later.process_evolution():
        pass
    assert len(later.revisions(first)) == 1
