"""The graph carries knowledge: entities written with the notes on every write path, their live
counts kept true, kinds inferred, typed links from evidence, dedup that respects subjects and a
bounded similarity degree; real Neo4j, real embedder, heuristic enricher."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from kg_brain.base.clock import utc_now
from kg_brain.base.vocab import LinkType
from kg_brain.root.app import Brain
from kg_brain.store.db import Database
from tests.support.brains import make_brain


def _entities(db: Database, project: str) -> dict[str, dict[str, Any]]:
    """Every entity of the project with its stored count and the notes that mention it."""
    rows, _, _ = db.driver.execute_query(
        "MATCH (e:Entity {project: $project}) "
        "RETURN e.key AS key, e.kind AS kind, e.notes AS notes, "
        "[(n:Note)-[:MENTIONS]->(e) | n.zk_id] AS mentioned_by", project=project,
        database_=db.conn.database)
    return {r["key"]: dict(r) for r in rows}


def _links(db: Database, zk_id: str) -> list[dict[str, Any]]:
    rows, _, _ = db.driver.execute_query(
        "MATCH (n:Note {zk_id: $zk_id})-[r]-(m:Note) RETURN type(r) AS type, r.origin AS origin, "
        "m.zk_id AS other, startNode(r) = n AS out", zk_id=zk_id, database_=db.conn.database)
    return [dict(r) for r in rows]


def test_add_memory_writes_the_entities_and_counts_live_notes(brain: Brain, project: str) -> None:
    first = brain.writer.add("The payment worker runs its migrations with Alembic from "
                             "services/payments/migrations before it starts.", project).note
    second = brain.writer.add("Alembic autogenerate misses server defaults unless "
                              "compare_server_default is set in env.py.", project).note
    entities = _entities(brain.db, project)
    assert entities["alembic"]["notes"] == 2
    assert set(entities["alembic"]["mentioned_by"]) == {first.zk_id, second.zk_id}
    assert entities["services/payments/migrations"]["kind"] == "file"
    assert entities["compare_server_default"]["notes"] == 1
    shown = {e.key: e for e in brain.reader.get([second.zk_id])[0].entities}
    assert shown["alembic"].notes == 2 and "compare_server_default" in shown
    related = brain.search.get_related(second.zk_id)
    assert {e.key for e in related.entities} == set(shown)


def test_an_update_replaces_the_mentions_and_drops_orphans(brain: Brain, project: str) -> None:
    note = brain.writer.add("The inventory sync reads SYNC_BATCH_SIZE from the environment.",
                            project).note
    assert "SYNC_BATCH_SIZE" in _entities(brain.db, project)
    brain.writer.update(note.zk_id, "The inventory sync reads INVENTORY_PAGE_SIZE instead.")
    entities = _entities(brain.db, project)
    assert "SYNC_BATCH_SIZE" not in entities  # no note mentions it any more: the node is gone
    assert entities["INVENTORY_PAGE_SIZE"]["mentioned_by"] == [note.zk_id]
    history = brain.revisions.history(note.zk_id)
    brain.revisions.restore(note.zk_id, history[0].version)
    entities = _entities(brain.db, project)
    assert "SYNC_BATCH_SIZE" in entities and "INVENTORY_PAGE_SIZE" not in entities


def test_archiving_and_restoring_keep_the_counts_true(db: Database, embedder: Any,
                                                      project: str) -> None:
    t0 = utc_now() - timedelta(days=400)
    old = make_brain(db, embedder, clock=lambda: t0)
    stale = old.writer.add("The nightly exporter writes parquet files to the reports bucket.",
                           project).note
    now = make_brain(db, embedder)
    kept = now.writer.add("The nightly exporter retries failed uploads three times.",
                          project).note
    assert _entities(db, project)["nightly exporter"]["notes"] == 2
    report = now.lifecycle.archive_stale(dry_run=False, project=project)
    assert report.archived == 1
    entities = _entities(db, project)
    assert entities["nightly exporter"]["notes"] == 1  # the archived note no longer counts
    assert entities["parquet file"]["notes"] == 0 and entities["parquet file"]["mentioned_by"] == [
        stale.zk_id]  # but its mentions stay, so a restore brings them back
    now.lifecycle.restore(stale.zk_id)
    assert _entities(db, project)["nightly exporter"]["notes"] == 2
    assert kept.zk_id in _entities(db, project)["nightly exporter"]["mentioned_by"]


def test_every_write_path_writes_mentions(brain: Brain, project: str) -> None:
    brain.importer.add_many([{"content": "The ledger service pins psycopg 3.1 for COPY support.",
                              "project": project}])
    captured = brain.sessions.capture("The ledger service logs to /var/log/ledger.log.", project)
    brain.writer.distill(captured.notes[0].zk_id)
    closed = brain.sessions.close(project, "Move the ledger service to psycopg 3.2",
                                  ["read the changelog"], [], ["bump psycopg in pyproject.toml"])
    failure = brain.mistakes.record_failure("ledger service crashed with "
                                            "psycopg.errors.UniqueViolation on replay", project)
    brain.mistakes.record_resolution(failure.zk_id, "Replay now skips rows already in the ledger "
                                     "table, so psycopg.errors.UniqueViolation is gone.")
    entities = _entities(brain.db, project)
    mentioned = {z for e in entities.values() for z in e["mentioned_by"]}
    assert {closed.summary_zk_id, closed.open_thread_zk_id, failure.zk_id,
            captured.notes[0].zk_id} <= mentioned
    assert len(entities["ledger service"]["mentioned_by"]) >= 5
    assert "psycopg.errors.uniqueviolation" in entities or "uniqueviolation" in entities


def test_an_import_batch_mentions_a_shared_entity_once_per_note(brain: Brain,
                                                                project: str) -> None:
    """Notes of one batch naming one entity (new, or there before) make one Entity with a
    MENTIONS from each and its count raised by each; a note naming it twice counts once."""
    brain.writer.add("The ledger service runs on PostgreSQL 16.", project)
    texts = ["The ledger service retries PostgreSQL deadlocks twice.",
             "Celery beats every minute; the ledger service reads its queue.",
             "Celery workers restart nightly. celery keeps one queue per tenant."]
    ids = brain.importer.add_many([{"content": t, "project": project} for t in texts],
                                  batch_size=8)
    entities = _entities(brain.db, project)
    ledger, celery = entities["ledger service"], entities["celery"]
    assert set(ids[:2]) <= set(ledger["mentioned_by"])
    assert ledger["notes"] == len(ledger["mentioned_by"]) == 3
    assert sorted(celery["mentioned_by"]) == sorted(ids[1:]) and celery["notes"] == 2


def test_a_general_note_gets_its_kind_from_the_text(brain: Brain, project: str) -> None:
    mistake = brain.writer.add("Mistake: the order-api returned 502 because gunicorn workers "
                               "timed out after 30s while the report query ran.", project)
    assert mistake.inferred_kind == "mistake" and mistake.note.note_kind == "mistake"
    fix = brain.writer.add("Fix: the order-api no longer returns 502; gunicorn --timeout is now "
                           "120s and the report query moved to a background job.", project)
    assert fix.inferred_kind == "fix" and fix.note.note_kind == "fix"
    assert {"type": "FIXES", "origin": "auto", "other": mistake.note.zk_id, "out": True} in \
        _links(brain.db, fix.note.zk_id)
    told = brain.writer.add("We decided to run the report query in a background job.", project,
                            note_kind="decision")
    assert told.inferred_kind is None and told.note.note_kind == "decision"


def test_alike_sentences_about_different_subjects_are_both_kept(brain: Brain,
                                                                project: str) -> None:
    a = brain.writer.add("The payment worker's migrations run with Alembic before each deploy.",
                         project)
    b = brain.writer.add("The inventory sync's migrations run with Alembic before each deploy.",
                         project)
    again = brain.writer.add("The payment worker's migrations run with Alembic before each "
                             "deploy.", project)
    assert not b.deduplicated and b.note.zk_id != a.note.zk_id
    assert again.deduplicated and again.matched_zk_id == a.note.zk_id


def test_similarity_links_are_bounded_and_typed_links_kept(db: Database, embedder: Any,
                                                          project: str) -> None:
    brain = make_brain(db, embedder, link_top_k=3)
    hub = brain.writer.add("The cache warmer preloads product pages into Redis every morning.",
                           project).note.zk_id
    for n in range(8):
        brain.writer.add(f"The cache warmer preloads product pages into Redis every morning, "
                         f"batch {n} of the catalogue (shard {n + 10}).", project)
    fix = brain.writer.add("Fix: the cache warmer no longer floods Redis; it preloads product "
                           "pages in batches of 500.", project, note_kind="fix").note.zk_id
    brain.db.write_tx(lambda tx: brain.writer.link(tx, fix, hub, LinkType.FIXES, "throttled"))
    links = _links(db, hub)
    similar = [link for link in links if link["type"] == "RELATES_TO" and link["origin"] == "auto"]
    assert len(similar) <= 3
    assert {"type": "FIXES", "origin": "explicit", "other": fix, "out": False} in links
    degrees, _, _ = db.driver.execute_query(
        "MATCH (n:Note {project: $project}) RETURN max(COUNT { (n)-[r:RELATES_TO]-(:Note) "
        "WHERE r.origin = 'auto' }) AS most", project=project, database_=db.conn.database)
    assert degrees[0]["most"] <= 3


def test_an_open_question_written_by_hand_stays_searchable(brain: Brain, project: str) -> None:
    """Only the session tools write contextual kinds: an inferred one would hide the note from
    search and let the next handoff archive it."""
    added = brain.writer.add("Open question: should the importer retry rows that fail the "
                             "schema check, or park them in a dead-letter table?", project)
    assert added.note.note_kind == "general" and added.inferred_kind is None
    brain.sessions.close(project, "Importer hardening", ["schema check"], [], ["decide retries"])
    hits = brain.search.search_memory("importer dead-letter table for failed rows", project)
    assert added.note.zk_id in [h.zk_id for h in hits]
