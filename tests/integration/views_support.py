"""Shared helpers for the views tests: settings for the test server, a small graph."""

from __future__ import annotations

from dataclasses import dataclass

from kg_brain.app import utc_now
from kg_brain.db import Database
from kg_brain.embed import SentenceTransformerEmbedder
from kg_brain.llm import build_enricher
from kg_brain.memory import Memory
from kg_brain.settings import Settings, load_settings
from kg_brain.store.model import LinkType


def settings_for(db: Database, **overrides: object) -> Settings:
    """Settings whose Neo4j is the test server (for CLI handlers, which build their own Brain)."""
    conn = db.conn
    values: dict[str, object] = {"neo4j_uri": conn.uri, "neo4j_user": conn.user,
                                 "neo4j_password": conn.password, "neo4j_database": conn.database}
    return load_settings(**(values | overrides))


def memory_for(db: Database, embedder: SentenceTransformerEmbedder, **overrides: object) -> Memory:
    settings = settings_for(db, **overrides)
    return Memory(settings, db, embedder, build_enricher(settings, embedder), utc_now)


@dataclass
class Graph:
    mistake: str
    fix: str
    decision: str
    pinned: str
    revised: str


def small_graph(memory: Memory, project: str) -> Graph:
    """A mistake with its fix, a decision, a pinned pattern and a note with a kept revision."""
    mistake = memory.add("pytest hangs forever when the Neo4j driver is never closed at exit.",
                         project, note_kind="mistake").note.zk_id
    fix = memory.add("Close the Neo4j driver in a session-scoped fixture finaliser so pytest "
                     "exits cleanly.", project, note_kind="fix").note.zk_id
    decision = memory.add("We decided to keep every Cypher statement in its own file under "
                          "cypher/ and load it by name.", project, note_kind="decision").note.zk_id
    pinned = memory.add("Always pass timestamps from the injected clock as $now.", project,
                        note_kind="pattern", pinned=True).note.zk_id
    memory.db.write_tx(lambda tx: memory.link(tx, fix, mistake, LinkType.FIXES,
                                              "closing the driver stops the hang", 0.9))
    memory.update(decision, "We decided to keep every Cypher statement in its own file under "
                            "cypher/, one statement per file, loaded once by name.")
    return Graph(mistake, fix, decision, pinned, decision)


def delete_project(db: Database, project: str) -> None:
    """Remove a test's own notes and their revisions (test data only, never shared data)."""
    db.driver.execute_query(
        "MATCH (n:Note {project: $project}) OPTIONAL MATCH (r:Revision)-[:REVISION_OF]->(n) "
        "DETACH DELETE n, r", project=project, database_=db.conn.database)


def mention_entities(db: Database, project: str, mentions: dict[str, list[str]]) -> None:
    """SEEDING THE GRAPH SHAPE ONLY: (:Note)-[:MENTIONS]->(:Entity {key, name, kind, project})
    by plain Cypher, as the entity write path on main will write them; `mentions` maps an entity
    key `kind:name` to the zk_ids of the notes that mention it."""
    rows = [{"zk_id": zk_id, "key": key, "kind": key.split(":", 1)[0],
             "name": key.split(":", 1)[1]} for key, ids in mentions.items() for zk_id in ids]
    db.driver.execute_query(
        "UNWIND $rows AS m MATCH (n:Note {zk_id: m.zk_id}) "
        "MERGE (e:Entity {project: $project, key: m.key}) SET e.name = m.name, e.kind = m.kind "
        "MERGE (n)-[:MENTIONS]->(e)", rows=rows, project=project, database_=db.conn.database)
