"""Settings and brains for tests: built on the suite's Neo4j and embedder, never reading a
developer's `.env`, and a small graph with every kind of thing a view shows."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from kg_brain.base.clock import Clock, utc_now
from kg_brain.base.settings import Settings, load_settings
from kg_brain.base.vocab import LinkType
from kg_brain.enrichment.embed import Embedder
from kg_brain.root.app import Brain
from kg_brain.store.db import Database
from kg_brain.surfaces.leasing import Leases, default_holder
from kg_brain.surfaces.maintenance import EVOLUTION_DRAIN, SENTENCE_DRAIN


def make_settings(**overrides: Any) -> Settings:
    """Offline enrichment, no in-server scheduler, every tool offered (tests/mcp/test_profiles.py
    tests the profiles), and no `.env` file read."""
    base: dict[str, Any] = {"llm_provider": "heuristic", "scheduler_in_server": False,
                            "kg_brain_tools": "full", "_env_file": None}
    return load_settings(**{**base, **overrides})


def settings_for(db: Database, **overrides: Any) -> Settings:
    """Settings whose Neo4j is the test server (for CLI handlers, which build their own Brain)."""
    conn = db.conn
    values: dict[str, Any] = {"neo4j_uri": conn.uri, "neo4j_user": conn.user,
                              "neo4j_password": conn.password, "neo4j_database": conn.database}
    return make_settings(**(values | overrides))


def make_brain(db: Database, embedder: Embedder, clock: Clock = utc_now,
               **overrides: Any) -> Brain:
    return Brain(settings_for(db, **overrides), db=db, embedder=embedder, clock=clock)


@dataclass
class Graph:
    mistake: str
    fix: str
    decision: str
    pinned: str
    revised: str


def small_graph(brain: Brain, project: str) -> Graph:
    """A mistake with its fix, a decision, a pinned pattern and a note with a kept revision."""
    writer = brain.writer
    mistake = writer.add("pytest hangs forever when the Neo4j driver is never closed at exit.",
                         project, note_kind="mistake").note.zk_id
    fix = writer.add("Close the Neo4j driver in a session-scoped fixture finaliser so pytest "
                     "exits cleanly.", project, note_kind="fix").note.zk_id
    decision = writer.add("We decided to keep every Cypher statement in its own file under "
                          "cypher/ and load it by name.", project, note_kind="decision").note.zk_id
    pinned = writer.add("Always pass timestamps from the injected clock as $now.", project,
                        note_kind="pattern", pinned=True).note.zk_id
    brain.db.write_tx(lambda tx: writer.link(tx, fix, mistake, LinkType.FIXES,
                                             "closing the driver stops the hang"))
    writer.update(decision, "We decided to keep every Cypher statement in its own file under "
                            "cypher/, one statement per file, loaded once by name.")
    return Graph(mistake, fix, decision, pinned, decision)


def delete_project(db: Database, project: str) -> None:
    """Remove a test's own notes, tombstones, revisions, sentences and queued jobs (test data
    only, never shared data)."""
    db.driver.execute_query(
        "MATCH (n:Note {project: $project}) OPTIONAL MATCH (r:Revision)-[:REVISION_OF]->(n) "
        "OPTIONAL MATCH (p:Sentence)-[:SENTENCE_OF]->(n) "
        "DETACH DELETE n, r, p", project=project, database_=db.conn.database)
    for label in ("Entity", "Job"):
        db.driver.execute_query(f"MATCH (e:{label} {{project: $project}}) DETACH DELETE e",
                                project=project, database_=db.conn.database)
    db.driver.execute_query(
        "MATCH (f:Forgotten {project: $project}) OPTIONAL MATCH (r:Revision)-[:REVISION_OF]->(f) "
        "DETACH DELETE f, r", project=project, database_=db.conn.database)


@contextmanager
def drains_held(db: Database, project: str) -> Iterator[None]:
    """The project's evolution and sentences drains held here, as a window holds its own: a
    service or scheduler another test started leaves the project's queued jobs alone, so what a
    test searches is what it wrote (each note by its whole vector until a test runs its jobs)."""
    held = Leases(db, utc_now, default_holder())
    names = [f"{job}:{project}" for job in (EVOLUTION_DRAIN, SENTENCE_DRAIN)]
    assert all(held.acquire(name, timedelta(hours=1)) for name in names)
    try:
        yield
    finally:
        for name in names:
            held.release(name)
