"""The real server: schema, the vector index with real embeddings, the Browser over HTTP, and a
local server's files private to the user."""

from __future__ import annotations

import stat
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from bench.store import raw_fulltext_query
from kg_brain.base import cypher
from kg_brain.base.cypher import all_query_names
from kg_brain.base.vocab import VECTOR_INDEX, WORD_INDEX
from kg_brain.domain.query_text import in_project
from kg_brain.enrichment.embed import SentenceTransformerEmbedder
from kg_brain.store import admin
from kg_brain.store.db import Database
from kg_brain.store.lifecycle import cluster_pairs
from kg_brain.store.mistakes import preflight_mistakes
from kg_brain.store.notes import create_notes, nearest_notes, new_zk_id
from kg_brain.store.schema import (
    FILTERED_VECTOR_FIELDS,
    bootstrap_schema,
    create_vector_index,
    drop_fulltext_index,
    drop_vector_index,
)
from kg_brain.store.share import WRITE_FLOOR
from tests.support.neo4j import ServerUnderTest, configured_line, local_server
from tests.support.statements import body, bound_statements, row_keys, schema_command


def _note(project: str, text: str, vector: list[float]) -> dict[str, object]:
    now = datetime.now(UTC)
    return {"zk_id": new_zk_id(), "title": text[:40], "content": text, "context": "",
            "keywords": [], "tags": [], "memory_type": "permanent", "note_kind": "general",
            "pinned": False, "project": project, "created": now, "updated": now,
            "access_count": 0, "embedding": vector}


@pytest.mark.routing
def test_server_is_community_of_the_configured_line(db: Database) -> None:
    version = admin.server_version(db)
    assert version["version"].startswith(configured_line())
    assert version["edition"] == "community"


@pytest.mark.routing
def test_schema_bootstrap_is_idempotent_and_creates_the_indexes(db: Database) -> None:
    bootstrap_schema(db)  # second run must not fail
    indexes = {i["name"]: i for i in admin.list_indexes(db)}
    assert indexes[VECTOR_INDEX]["type"] == "VECTOR"
    assert indexes["note_fulltext"]["properties"] == ["title", "content", "context", "keywords",
                                                      "project"]
    assert indexes[WORD_INDEX]["properties"] == ["content", "title", "keywords", "context",
                                                 "project"]
    for prop in ("project", "memory_type", "note_kind", "last_accessed"):
        assert indexes[f"index_Note_{prop}"]["state"] == "ONLINE"
    assert indexes["constraint_unique_Note_zk_id"]["properties"] == ["zk_id"]


def test_bootstrap_rebuilds_a_full_text_index_made_before_the_project_was_indexed(
        own_neo4j: ServerUnderTest, embedder: SentenceTransformerEmbedder) -> None:
    """A database made by an older release has the note index without the project: the
    bootstrap drops and builds it again, and a project-scoped query then finds the old note."""
    db = Database(own_neo4j.conn)
    try:
        bootstrap_schema(db)
        drop_fulltext_index(db)
        db.driver.execute_query(  # the index as releases before the project field made it
            "CREATE FULLTEXT INDEX note_fulltext FOR (n:Note) "
            "ON EACH [n.title, n.content, n.context, n.keywords] "
            "OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}")
        text = "The nightly compaction of the audit log runs at two."
        made = _note("upgrade-probe", text, embedder.encode(text))
        create_notes(db, rows=[made])
        bootstrap_schema(db)
        indexes = {i["name"]: i for i in admin.list_indexes(db)}
        assert indexes["note_fulltext"]["properties"] == ["title", "content", "context",
                                                          "keywords", "project"]
        assert indexes["note_fulltext"]["state"] == "ONLINE"
        query = in_project("content:(compaction)", "upgrade-probe")
        assert [h["zk_id"] for h in raw_fulltext_query(db, lex=query, k=5)] == [made["zk_id"]]
    finally:
        db.close()


def test_bootstrap_makes_the_vector_index_filter_on_the_project_on_the_2026_line(
        own_neo4j: ServerUnderTest, embedder: SentenceTransformerEmbedder) -> None:
    """A database whose vector index does not declare the project (made on 5.26, or by an
    earlier release): on the 2026 line the bootstrap builds it again declaring the project, the
    notes already stored are in it, and a second bootstrap leaves it be; 5.26 keeps it as is."""
    db = Database(own_neo4j.conn)
    try:
        bootstrap_schema(db)
        drop_vector_index(db)
        create_vector_index(db, dimensions=384)  # the index as 5.26 makes it
        texts = ["The nightly compaction of the audit log runs at two.",
                 "Bananas are rich in potassium."]
        made = [_note("upgrade-vector-probe", t, v)
                for t, v in zip(texts, embedder.encode_many(texts), strict=True)]
        create_notes(db, rows=made)
        bootstrap_schema(db)
        index = {i["name"]: i for i in admin.list_indexes(db)}[VECTOR_INDEX]
        assert index["properties"] == (FILTERED_VECTOR_FIELDS if db.line else ["embedding"])
        assert index["state"] == "ONLINE"
        bootstrap_schema(db)
        assert {i["name"]: i for i in admin.list_indexes(db)}[VECTOR_INDEX] == index
        ask = {"project": "upgrade-vector-probe", "memory_types": ["permanent"], "k": 1,
               "exclude": [], "rescan": True,
               "vector": embedder.encode("which fruit has potassium?")}
        rows, _, _ = db.driver.execute_query(cypher.query("notes/nearest_notes", db.line),
                                             fetch=100, **ask)
        assert [r["zk_id"] for r in rows] == [made[1]["zk_id"]]
    finally:
        db.close()


def test_the_lines_nearest_notes_are_the_common_statements_notes(db: Database,
                                                                 project: str) -> None:
    """On the server's line, the nearest notes its statements answer (on 2026 the index filtered
    on the project) are the notes and cosines the common statements answer and the exact scan
    of the project answers, beside another project's notes that lie nearer still; so does the
    smallest fetch a write asks for (WRITE_FLOOR x k)."""
    rng = np.random.default_rng(41)
    queries = rng.normal(size=(4, 384))
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)

    def at(query: np.ndarray, cosine: float) -> np.ndarray:
        """A vector at `cosine` to `query`: the nearest notes stand apart from the rest, as an
        approximate index finds them (random vectors alone all lie near cosine 0, where it
        may not, and the statements would differ by the index, not by their line)."""
        away = rng.normal(size=384)
        away -= away.dot(query) * query
        return cosine * query + np.sqrt(1 - cosine ** 2) * away / np.linalg.norm(away)

    mine = [at(q, c) for q in queries for c in (0.9, 0.8, 0.7, 0.6, 0.5)] + list(
        rng.normal(size=(20, 384)))
    other = [at(q, 0.97) for q in queries for _ in range(10)]  # nearer, not ours
    create_notes(db, rows=[_note(project, f"note {i}", v.tolist()) for i, v in enumerate(mine)]
                 + [_note(f"{project}-other", f"other {i}", v.tolist())
                    for i, v in enumerate(other)])
    for vector in queries.tolist():
        ask = {"project": project, "memory_types": ["permanent"], "k": 5, "exclude": [],
               "rescan": True, "vector": vector}
        answers = [[(r["zk_id"], round(r["similarity"], 5)) for r in db.driver.execute_query(
                       cypher.query("notes/nearest_notes", line), fetch=fetch, **ask)[0]]
                   for line, fetch in ((None, 0), (None, 100), (db.line, 100),
                                       (None, WRITE_FLOOR * 5), (db.line, WRITE_FLOOR * 5))]
        assert len(answers[0]) == 5 and all(answer == answers[0] for answer in answers[1:])


def test_a_short_index_answer_is_scanned_again_only_when_the_caller_lets_it(
        db: Database, project: str) -> None:
    """The index's nearest candidates are all fleeting (cosine 0.9 to the query), the three
    permanent notes asked for lie far (cosine 0): the index's answer comes short. With rescan
    the exact scan of the project answers them; without it (a project larger than
    IndexFetch.rescans allows) the index's answer stands and the statement reads a fraction of
    the project's notes (db hits against the scan's, about five a note)."""
    query, _, far = _directions()
    rng = np.random.default_rng(41)

    def near() -> list[float]:
        away = rng.normal(size=384)
        away -= away.dot(query) * np.array(query)
        return (0.9 * np.array(query) + np.sqrt(1 - 0.81) * away / np.linalg.norm(away)).tolist()

    fleeting = [_note(project, f"fleeting {i}", near()) for i in range(600)]
    for row in fleeting:
        row["memory_type"] = "fleeting"
    permanent = [_note(project, f"permanent {i}", far) for i in range(3)]
    create_notes(db, rows=fleeting + permanent)
    statement = cypher.query("notes/nearest_notes", db.line)
    language, _, rest = statement.partition("\n")  # the line's Cypher language comes first
    profile = f"{language}\nPROFILE {rest}" if db.line else f"PROFILE {statement}"
    ask = {"project": project, "memory_types": ["permanent"], "fetch": 20, "k": 3, "exclude": [],
           "vector": query}

    def profiled(rescan: bool) -> tuple[list[str], int]:
        records, summary, _ = db.driver.execute_query(profile, rescan=rescan, **ask)
        return sorted(r["zk_id"] for r in records), _db_hits(summary.profile)

    scanned, scan_hits = profiled(rescan=True)
    assert scanned == sorted(r["zk_id"] for r in permanent)
    kept, kept_hits = profiled(rescan=False)
    assert kept == [] and kept_hits < len(fleeting) < scan_hits


def _db_hits(plan: dict[str, object]) -> int:
    children = plan.get("children") or []
    return int(plan.get("dbHits", 0)) + sum(_db_hits(c) for c in children)  # type: ignore[arg-type, attr-defined]


@pytest.mark.routing
def test_vector_index_returns_the_nearest_note_for_real_embeddings(
    db: Database, embedder: SentenceTransformerEmbedder, project: str
) -> None:
    texts = ["Neo4j stores the graph on disk with a page cache",
             "Bananas are rich in potassium",
             "The train to Zurich leaves at nine"]
    rows = [_note(project, t, v) for t, v in zip(texts, embedder.encode_many(texts), strict=True)]
    create_notes(db, rows=rows)
    found = nearest_notes(db, vector=embedder.encode("which fruit has potassium?"),
                          project=project, memory_types=["permanent"], fetch=100, rescan=True,
                          k=1, exclude=[])
    assert found[0]["zk_id"] == rows[1]["zk_id"]
    assert found[0]["similarity"] > 0.5


def test_browser_is_served_over_http(neo4j_server: ServerUnderTest) -> None:
    with urllib.request.urlopen(f"{neo4j_server.http_url}/browser/", timeout=10) as resp:
        body = resp.read().decode("utf-8", "replace")
    assert resp.status == 200
    assert "Neo4j Browser" in body or "neo4j-browser" in body.lower()


def test_every_cypher_file_compiles_on_the_real_server(db: Database) -> None:
    """EXPLAIN plans each statement, as the server's line runs it, without running it: a syntax
    or schema slip fails here."""
    names = all_query_names()
    assert len(names) > 10
    with db.driver.session(database=db.conn.database) as session:
        for name in names:
            text = body(name, db.line)
            if schema_command(text) or "IN TRANSACTIONS" in text:
                continue  # schema commands and periodic commits cannot be EXPLAINed
            session.run("EXPLAIN " + text).consume()


def test_every_store_row_has_exactly_the_columns_its_statement_returns(db: Database) -> None:
    """The server's own account of each statement's columns, against the store's row type."""
    explained = 0
    with db.driver.session(database=db.conn.database) as session:
        for name, spec in bound_statements().items():
            text = body(name, db.line)
            if schema_command(text):
                continue  # schema commands return nothing and cannot be EXPLAINed
            result = session.run("EXPLAIN " + text)
            columns = list(result.keys())
            result.consume()
            assert row_keys(spec) == columns, name
            explained += 1
    assert explained > 50


def _directions() -> tuple[list[float], list[float], list[float]]:
    """Three dense 384-dimension unit vectors a, b, c with b and c orthogonal to a and to each
    other (dense: the index quantizes vectors, and sparse ones lose most to it)."""
    rng = np.random.default_rng(384)
    basis, _ = np.linalg.qr(rng.normal(size=(384, 3)))
    return tuple(basis[:, i].tolist() for i in range(3))  # type: ignore[return-value]


def test_merge_pairs_are_found_beside_nearer_notes_of_another_project(
        db: Database, project: str) -> None:
    """Two notes of the project at cosine 0.92, 150 notes of another project nearer to each
    (0.97 to their middle). On the 2026 line the index filters on the project, so the pair is
    among each note's neighbours; 5.26's index answers the other project's notes first, all
    above the threshold, so the exact scan of the project follows and finds the pair."""
    middle, _, _ = _directions()
    rng = np.random.default_rng(92)

    def at(cosine: float) -> list[float]:
        away = rng.normal(size=384)
        away -= away.dot(middle) * np.array(middle)
        return (cosine * np.array(middle)
                + np.sqrt(1 - cosine ** 2) * away / np.linalg.norm(away)).tolist()

    pair = [_note(project, f"pair {i}", at(0.96)) for i in range(2)]
    create_notes(db, rows=pair + [_note(f"{project}-other", f"other {i}", at(0.97))
                                  for i in range(150)])
    pairs = cluster_pairs(db, project=project, min_similarity=0.85, fetch=100, rescan=True,
                          merge_types=[], excluded_kinds=[])
    assert [(p["a"], p["b"]) for p in pairs] == [tuple(sorted(r["zk_id"] for r in pair))]
    assert pairs[0]["similarity"] == pytest.approx(0.92, abs=0.03)


@pytest.mark.routing
def test_every_similarity_is_the_cosine_not_neo4js_half_shifted_score(
    db: Database, project: str
) -> None:
    """Neo4j's vector score is (1 + cos) / 2; each statement that reads it answers the cosine:
    orthogonal vectors 0, opposite -1, the same direction 1, and a threshold is a cosine."""
    a, b, c = _directions()
    near_a = (0.8 * np.array(a) + 0.6 * np.array(b)).tolist()  # cosine 0.8 to a
    rows = [_note(project, "The deploy failed on a missing migration", a),
            _note(project, "The deploy failed: a migration was missing", near_a)]
    for row in rows:
        row["note_kind"] = "mistake"
    create_notes(db, rows=rows)
    ask = {"project": project, "memory_types": ["permanent"], "fetch": 100, "rescan": True, "k": 2,
           "exclude": []}
    for query, expected in ((c, [0.0, 0.0]), ((-np.array(a)).tolist(), [-0.8, -1.0]),
                            (a, [1.0, 0.8])):
        found = [n["similarity"] for n in nearest_notes(db, vector=query, **ask)]
        assert found == pytest.approx(expected, abs=0.02)
    past = preflight_mistakes(db, question={"project": project, "signature": "", "exclude": []},
                              vector=c, fetch=10, k=2, now=datetime.now(UTC))
    assert [p["similarity"] for p in past] == pytest.approx([0.0, 0.0], abs=1e-4)
    kept = cluster_pairs(db, project=project, min_similarity=0.75, fetch=100, rescan=True,
                         merge_types=[], excluded_kinds=[])
    assert [p["similarity"] for p in kept] == pytest.approx([0.8], abs=0.02)
    assert cluster_pairs(db, project=project, min_similarity=0.85, fetch=100, rescan=True,
                         merge_types=[], excluded_kinds=[]) == []


def test_a_local_servers_home_and_jars_are_the_users_alone(tmp_path: Path) -> None:
    """A home from before the rule (755 folders, 644 files) is tightened on start, and what
    Neo4j writes itself while it runs (store, transaction logs, its logs) is 0600 in 0700."""
    home = tmp_path / "neo4j-home"
    older = home / "logs" / "neo4j.log"
    older.parent.mkdir(parents=True)
    older.write_text("an older install")
    older.chmod(0o644)
    for folder in (home, older.parent):
        folder.chmod(0o755)
    with local_server(home) as server:
        assert server.local is not None
        jars = server.local.lib_dir.parent
        written = [p for root in (home, jars) for p in (root, *root.rglob("*"))
                   if not p.is_symlink()]
        assert any(p.parent.name == "transactions" for p in home.rglob("*"))  # Neo4j's own
        assert {older, home / "conf" / "neo4j.conf", server.local.pid_file} <= set(written)
        assert {str(p): oct(stat.S_IMODE(p.stat().st_mode)) for p in written
                if stat.S_IMODE(p.stat().st_mode) & 0o077} == {}
