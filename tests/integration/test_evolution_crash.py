"""Evolution survives a crash: the queue lives in Neo4j and a job applies exactly once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from datetime import timedelta

from kg_brain.base.clock import utc_now
from kg_brain.enrichment.embed import SentenceTransformerEmbedder
from kg_brain.root.app import Brain
from kg_brain.store.db import Database
from tests.support.brains import make_brain
from tests.support.neo4j import ServerUnderTest

WRITER = textwrap.dedent("""
    import json, os, signal, sys
    from datetime import timedelta
    from kg_brain.root.app import Brain
    from kg_brain.base.clock import utc_now
    from kg_brain.store.db import Connection, Database
    from kg_brain.base.settings import load_settings
    from kg_brain.store import jobs
    db = Database(Connection(os.environ["NEO4J_URI"], "neo4j", os.environ.get("NEO4J_PASSWORD"),
                             "neo4j"))
    brain = Brain(load_settings(_env_file=None), db=db)
    project = sys.argv[1]
    first = brain.writer.add("Flaky CI runs come from tests sharing one Neo4j database "
                             "without project isolation.", project)
    second = brain.writer.add("Give every test its own project namespace so flaky CI runs "
                              "caused by a shared Neo4j database go away.", project)
    if sys.argv[2] == "claim":
        jobs.claim_project_jobs(db, project=project, kind="evolve", now=utc_now(), limit=10,
                                until=utc_now() + timedelta(minutes=2), worker="doomed")
    sys.stdout.write(json.dumps([first.note.zk_id, second.note.zk_id]) + "\\n")
    sys.stdout.flush()
    os.kill(os.getpid(), signal.SIGKILL)  # dies before any evolution runs
""")


def _crash_writer(server: ServerUnderTest, project: str, mode: str) -> list[str]:
    # the two notes are about 0.92 alike: a strict dedup keeps both, so a job is always queued
    env = {**os.environ, "NEO4J_URI": server.conn.uri, "NEO4J_PASSWORD": server.conn.password or "",
           "DEDUP_MIN_COSINE": "0.99"}
    proc = subprocess.run([sys.executable, "-c", WRITER, project, mode], env=env,
                          capture_output=True, text=True, timeout=180, check=False)
    assert proc.returncode == -signal.SIGKILL, proc.stderr[-2000:]
    return list(json.loads(proc.stdout.strip().splitlines()[-1]))


def _brain(db: Database, embedder: SentenceTransformerEmbedder, later: timedelta) -> Brain:
    return make_brain(db, embedder, clock=lambda: utc_now() + later)


def test_evolution_queued_before_a_crash_completes_once_after_restart(
    neo4j_server: ServerUnderTest, db: Database, embedder: SentenceTransformerEmbedder,
    project: str,
) -> None:
    first, _ = _crash_writer(neo4j_server, project, "queue")
    brain = _brain(db, embedder, timedelta())
    assert not brain.revisions.history(first)
    while brain.evolution.process(project=project):
        pass
    assert len(brain.revisions.history(first)) == 1
    assert brain.evolution.process(project=project) == 0
    assert len(brain.revisions.history(first)) == 1


def test_a_crashed_workers_claim_expires_and_the_job_runs_once(
    neo4j_server: ServerUnderTest, db: Database, embedder: SentenceTransformerEmbedder,
    project: str,
) -> None:
    first, _ = _crash_writer(neo4j_server, project, "claim")
    now = _brain(db, embedder, timedelta())
    now.evolution.process(project=project)
    assert not now.revisions.history(first), "a live claim must not be taken over"
    later = _brain(db, embedder, timedelta(minutes=5))
    while later.evolution.process(project=project):
        pass
    assert len(later.revisions.history(first)) == 1
