"""The real server: schema, the vector index with real embeddings, the Browser over HTTP."""

from __future__ import annotations

import urllib.request
from datetime import UTC, datetime

from kg_brain.cypher import all_query_names, query
from kg_brain.db import Database
from kg_brain.embed import SentenceTransformerEmbedder
from kg_brain.store.model import VECTOR_INDEX
from kg_brain.store.notes import create_notes, new_zk_id
from tests.conftest import ServerUnderTest


def _note(project: str, text: str, vector: list[float]) -> dict[str, object]:
    now = datetime.now(UTC)
    return {"zk_id": new_zk_id(), "title": text[:40], "content": text, "context": "",
            "keywords": [], "tags": [], "memory_type": "permanent", "note_kind": "general",
            "pinned": False, "project": project, "created": now, "updated": now,
            "access_count": 0, "embedding": vector}


def test_server_is_neo4j_5_26_community(db: Database) -> None:
    rows = db.read("admin/server_version")
    assert rows[0]["version"].startswith("5.26.")
    assert rows[0]["edition"] == "community"


def test_schema_bootstrap_is_idempotent_and_creates_the_indexes(db: Database) -> None:
    db.bootstrap_schema()  # second run must not fail
    indexes = {i["name"]: i for i in db.read("admin/list_indexes")}
    assert indexes[VECTOR_INDEX]["type"] == "VECTOR"
    assert indexes["note_fulltext"]["properties"] == ["title", "content", "context", "keywords"]
    for prop in ("project", "memory_type", "note_kind", "last_accessed"):
        assert indexes[f"index_Note_{prop}"]["state"] == "ONLINE"
    assert indexes["constraint_unique_Note_zk_id"]["properties"] == ["zk_id"]


def test_vector_index_returns_the_nearest_note_for_real_embeddings(
    db: Database, embedder: SentenceTransformerEmbedder, project: str
) -> None:
    texts = ["Neo4j stores the graph on disk with a page cache",
             "Bananas are rich in potassium",
             "The train to Zurich leaves at nine"]
    rows = [_note(project, t, v) for t, v in zip(texts, embedder.encode_many(texts), strict=True)]
    db.write_tx(lambda tx: create_notes(tx, rows))
    found = db.read("notes/nearest_notes", vector=embedder.encode("which fruit has potassium?"),
                    project=project, memory_types=["permanent"], fetch=100, k=1, exclude=[])
    assert found[0]["zk_id"] == rows[1]["zk_id"]
    assert found[0]["similarity"] > 0.5


def test_browser_is_served_over_http(neo4j_server: ServerUnderTest) -> None:
    with urllib.request.urlopen(f"{neo4j_server.http_url}/browser/", timeout=10) as resp:
        body = resp.read().decode("utf-8", "replace")
    assert resp.status == 200
    assert "Neo4j Browser" in body or "neo4j-browser" in body.lower()


def test_every_cypher_file_compiles_on_the_real_server(db: Database) -> None:
    """EXPLAIN plans each statement without running it: a syntax or schema slip fails here."""
    names = all_query_names()
    assert len(names) > 10
    with db.driver.session(database=db.conn.database) as session:
        for name in names:
            text = "\n".join(line for line in query(name).splitlines()
                             if not line.strip().startswith("//"))
            if text.strip().upper().startswith(("CREATE", "SHOW")) or "IN TRANSACTIONS" in text:
                continue  # schema commands and periodic commits cannot be EXPLAINed
            session.run("EXPLAIN " + text).consume()
