"""The write side against the real Neo4j and the real embedder (heuristic enricher)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from neo4j.exceptions import SessionExpired

from bench.plan_keys import plan_key
from kg_brain.base.errors import Conflict, InvalidInput, NotFound, StoreUnavailable
from kg_brain.domain.memory.text import embed_text
from kg_brain.root.app import Brain
from kg_brain.shapes.models import NoteView
from kg_brain.store import admin, notes
from kg_brain.store.db import Database, Tx

pytestmark = pytest.mark.routing  # also run through neo4j:// by `make test-routing`


def _count(db: Database, project: str) -> int:
    return sum(int(r["notes"]) for r in admin.note_counts(db) if r["project"] == project)


RELATED = [
    "Neo4j vector indexes in 5.26 cannot filter by property, so queries over-fetch candidates "
    "and filter by project afterwards.",
    "Over-fetching from the Neo4j vector index needs a larger k when many projects share one "
    "database, otherwise a small project's notes fall out of the candidate list.",
    "We decided to size the vector index over-fetch as twenty times k with a floor of one "
    "hundred candidates, because small projects lost results with plain k.",
]


def test_related_notes_are_enriched_linked_and_evolved(brain: Brain, project: str) -> None:
    added = [brain.writer.add(text, project) for text in RELATED]
    for result in added:
        note = result.note
        assert note.title and note.context and len(note.keywords) >= 3 and note.tags
        assert note.memory_type == "permanent"
    last = brain.reader.get([added[-1].note.zk_id])[0]
    assert {link.zk_id for link in last.links} & {a.note.zk_id for a in added[:2]}
    assert all(link.type and link.weight > 0 for link in last.links)
    before = {a.note.zk_id: a.note.context for a in added}
    while brain.evolution.process(project=project):
        pass
    after = {n.zk_id: n.context for n in brain.reader.get(list(before))}
    changed = [z for z in before if after[z] != before[z]]
    assert changed, "evolution refined no older note's context"
    original = brain.revisions.history(changed[0])[-1]  # newest first: the last is the first kept
    assert original.context == before[changed[0]]
    assert original.cause.startswith("evolution from")
    restored = brain.revisions.restore(changed[0], original.version)
    assert restored.context == before[changed[0]]


def test_notes_of_any_shape_send_add_note_the_same_parameter_kinds(
        brain: Brain, project: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Neo4j plans a statement apart for each parameter signature (a list's size class among
    them): a note with no link, one link or several, with or without an evolution job, in a
    client session or in none, would each be planned again, seconds on a loaded server."""
    sent: list[Any] = []
    run = Tx.run

    def recorded(tx: Tx, name: str, mode: Any, params: dict[str, Any],
                 changes: tuple[str, ...] = ()) -> Any:
        if name == "notes/add_note":
            sent.append(plan_key(params))
        return run(tx, name, mode, params, changes)

    monkeypatch.setattr(Tx, "run", recorded)
    added = [brain.writer.add(RELATED[0], project),
             brain.writer.add(RELATED[1], project, session_id="a-client-session"),
             brain.writer.add(RELATED[2], project, session_id="another-client-session-of-a-"
                                                             "longer-name")]
    links = [len(a.note.links) for a in added]  # as each was written
    assert links[0] == 0 < links[2] and len(sent) == 3
    assert len(set(sent)) == 1, sent


CHAT = [
    "Lena (9:02 am on 11 February, 2024): My sister and I always hike the coast trail at "
    "sunrise, then grab pastries in town.",
    "Lena (6:10 pm on 4 March, 2024): I'll never forget the sunrise hike on the coast trail "
    "with my sister, the sky was on fire.",
    "Lena (7:45 pm on 9 April, 2024): The climbing trip with my sister is booked for the long "
    "weekend.",
    "Lena (8:15 pm on 2 May, 2024): Can't wait for the climbing trip with my sister, we booked "
    "the cabin too!",
    "Lena (5:30 pm on 20 May, 2024): The climbing gym was packed! What did you take from it to "
    "your own training, Ravi?",
]


def test_chat_turns_about_other_things_get_no_typed_link(brain: Brain, project: str) -> None:
    """"Can't wait", "never forget" beside "always" and "from it to" are no denial and no
    change of date: turns of one speaker on other dates stay at most RELATES_TO."""
    added = [brain.writer.add(text, project) for text in CHAT]
    typed = [(link.type, link.reason) for a in added
             for link in brain.reader.get([a.note.zk_id])[0].links
             if link.type in ("SUPERSEDES", "CONTRADICTS")]
    assert typed == []
    assert any(brain.reader.get([a.note.zk_id])[0].links for a in added)


def test_a_moved_meeting_supersedes_its_old_date(brain: Brain, project: str) -> None:
    old = brain.writer.add("The quarterly budget review is on 7 March 2025 in room 4.", project)
    new = brain.writer.add("The quarterly budget review moved to 14 March 2025 because finance "
                           "is closing the books.", project)
    assert not new.deduplicated
    assert ("SUPERSEDES", old.note.zk_id) in {(link.type, link.zk_id) for link in new.note.links
                                              if link.direction == "out"}


def test_a_change_naming_a_bare_old_number_supersedes_the_note_stating_it(
        brain: Brain, project: str) -> None:
    """"(it was 20)" names the number the old note states beside the same setting's name."""
    old = brain.writer.add("Uploads are capped by MAX_UPLOAD_MB = 20 in config/limits.py.",
                           project)
    new = brain.writer.add("MAX_UPLOAD_MB is 50 from the next release (it was 20): designers "
                           "attach raw PSD files.", project)
    assert not new.deduplicated
    assert ("SUPERSEDES", old.note.zk_id) in {(link.type, link.zk_id) for link in new.note.links
                                              if link.direction == "out"}


def test_evolution_job_applies_once_even_when_processed_twice(brain: Brain, project: str) -> None:
    brain.writer.add(RELATED[0], project)
    second = brain.writer.add(RELATED[1], project)
    assert second.evolution_queued
    assert brain.evolution.process(project=project) >= 1
    key_done_again = brain.evolution.process(project=project)
    assert key_done_again == 0
    target = [link.zk_id for link in second.note.links][0]
    assert len(brain.revisions.history(target)) == 1


def test_near_duplicate_returns_the_existing_note(brain: Brain, project: str) -> None:
    first = brain.writer.add("Run pytest with -x to stop at the first failing test.", project)
    again = brain.writer.add("Run pytest with -x to stop at the first failing test!", project)
    assert again.deduplicated and again.matched_zk_id == first.note.zk_id
    assert again.note.access_count == 1
    assert _count(brain.db, project) == 1


def test_fleeting_notes_are_not_linked_or_evolved(brain: Brain, project: str) -> None:
    brain.writer.add(RELATED[0], project)
    fleeting = brain.writer.add(RELATED[1], project, memory_type="fleeting")
    assert fleeting.note.memory_type == "fleeting"
    assert fleeting.note.links == [] and not fleeting.evolution_queued


def test_distill_promotes_and_links_a_fleeting_note(brain: Brain, project: str) -> None:
    brain.writer.add(RELATED[0], project)
    fleeting = brain.writer.add(RELATED[1], project, memory_type="fleeting")
    promoted = brain.writer.distill(fleeting.note.zk_id)
    assert promoted.note.memory_type == "permanent"
    assert promoted.note.links
    with pytest.raises(InvalidInput, match="not fleeting"):
        brain.writer.distill(fleeting.note.zk_id)


def test_update_keeps_links_and_history(brain: Brain, project: str) -> None:
    brain.writer.add(RELATED[0], project)
    second = brain.writer.add(RELATED[1], project)
    updated = brain.writer.update(second.note.zk_id, RELATED[1] + " Measured on 5.26.30.")
    assert "5.26.30" in updated.note.content
    assert {lk.zk_id for lk in updated.note.links} == {lk.zk_id for lk in second.note.links}
    assert brain.revisions.history(second.note.zk_id)[0].content == RELATED[1]


def test_secrets_are_redacted_before_storage(brain: Brain, project: str) -> None:
    result = brain.writer.add("Deploy key for staging is AKIAQ4TZ2MNB7XRW3KLP in the CI vars.",
                              project)
    assert "AKIAQ4TZ2MNB7XRW3KLP" not in result.note.content
    assert result.redacted


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"content": "   \n\t "}, "empty"),
        ({"content": "x" * 40_000}, "limit"),
        ({"content": "ok text", "note_kind": "gossip"}, "allowed: mistake, fix"),
        ({"content": "ok text", "memory_type": "archived"}, "cannot be written"),
        ({"content": "ok text", "memory_type": "forever"}, "allowed: fleeting"),
        ({"content": "ok text", "project": "../etc"}, "invalid project"),
    ],
)
def test_bad_input_is_refused_and_writes_nothing(
    brain: Brain, project: str, kwargs: dict[str, str], message: str
) -> None:
    args = {"project": project, **kwargs}
    with pytest.raises(InvalidInput, match=message):
        brain.writer.add(**args)
    assert _count(brain.db, project) == 0


def test_malformed_and_unknown_ids_are_clear_errors(brain: Brain) -> None:
    with pytest.raises(InvalidInput, match="malformed zk_id"):
        brain.reader.get(["ZK-123"])
    unknown = f"ZK-{uuid.uuid4().hex[:8].upper()}"
    with pytest.raises(NotFound, match=unknown):
        brain.reader.get([unknown.lower()])


def test_bulk_import_writes_every_record_with_embeddings(brain: Brain, project: str) -> None:
    records = [{"content": f"Fact number {i}: service {i} listens on port {8000 + i}.",
                "project": project} for i in range(300)]
    ids = brain.importer.add_many(records, batch_size=128)
    assert len(ids) == len(set(ids)) == 300
    assert _count(brain.db, project) == 300
    near = notes.nearest_notes(brain.db, vector=brain.embedder.encode(
        "which port does service 42 listen on"), project=project, memory_types=["permanent"],
        fetch=200, rescan=True, k=5, exclude=[])
    assert near and all(r["similarity"] > 0.3 for r in near)


def test_a_bad_record_anywhere_refuses_the_whole_import(brain: Brain, project: str) -> None:
    records = [{"content": f"Worker {i} drains queue {i} every minute.", "project": project}
               for i in range(300)]
    records.append({"project": project, "title": "no content"})
    with pytest.raises(InvalidInput, match="record 301: .*nothing was imported"):
        brain.importer.add_many(records, batch_size=64)
    assert _count(brain.db, project) == 0


def test_a_colliding_id_is_replaced_instead_of_failing_the_write(
    brain: Brain, project: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    existing = brain.writer.add("Cache keys include the tenant id to avoid leaks.",
                                project).note.zk_id
    unused = f"ZK-{uuid.uuid4().hex[:8].upper()}"
    fresh = iter([existing, unused])
    for where in ("kg_brain.domain.memory.write.new_zk_id", "kg_brain.store.notes.new_zk_id"):
        monkeypatch.setattr(where, lambda: next(fresh))
    added = brain.writer.add("Thumbnails wider than 4,000 pixels are skipped by the resizer.",
                             project)
    assert added.note.zk_id == unused
    assert brain.reader.get([existing])[0].content.startswith("Cache keys")


def test_alike_notes_with_different_details_are_both_kept(brain: Brain, project: str) -> None:
    first = brain.writer.add("Service alpha exposes metrics on port 9100 for the scraper.",
                             project)
    second = brain.writer.add("Service alpha exposes metrics on port 9101 for the scraper.",
                              project)
    assert not second.deduplicated
    assert second.note.zk_id != first.note.zk_id


def test_a_fix_is_never_merged_into_the_mistake_it_resembles(brain: Brain, project: str) -> None:
    mistake = brain.writer.add(
        "pytest hangs forever when the Neo4j driver is never closed at exit.", project,
        note_kind="mistake")
    fix = brain.writer.add("Close the Neo4j driver in a session-scoped fixture finaliser so "
                           "pytest exits cleanly.", project, note_kind="fix")
    assert not fix.deduplicated and fix.note.zk_id != mistake.note.zk_id


def _records(project: str, count: int) -> list[dict[str, Any]]:
    services = ["billing", "ledger", "search", "upload", "mailer", "scheduler", "gateway"]
    return [{"content": f"The {services[i % 7]} worker {i} retries failed calls {i % 5 + 2} "
                        f"times before it pages on-call (runbook step {i}).", "project": project}
            for i in range(count)]


def _vectors(db: Database, zk_ids: list[str]) -> dict[str, list[float]]:
    rows, _, _ = db.driver.execute_query(
        "MATCH (n:Note) WHERE n.zk_id IN $ids RETURN n.zk_id AS zk_id, n.embedding AS vector",
        ids=zk_ids, database_=db.conn.database)
    return {r["zk_id"]: list(r["vector"]) for r in rows}


def _cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return float(dot / (sum(x * x for x in a) ** 0.5 * sum(y * y for y in b) ** 0.5))


def _written(note: NoteView) -> str:
    """What the import wrote, the project's name left out (the context and tags name it)."""
    return repr((note.content, note.title, note.context, note.keywords, note.tags,
                 note.note_kind, note.memory_type, sorted(e.key for e in note.entities))
                ).replace(note.project, "<project>")


def test_the_pipelined_import_writes_what_one_batch_does(brain: Brain, project: str) -> None:
    """Small batches go through several embedding calls overlapping the writes; one batch of
    everything overlaps nothing. Both write the same notes, in record order."""
    other = f"{project}-whole"
    piped = brain.importer.add_many(_records(project, 150), batch_size=8)
    whole = brain.importer.add_many(_records(other, 150), batch_size=150)
    assert len(set(piped)) == len(piped) == 150 == _count(brain.db, project)
    a, b = brain.reader.get(piped), brain.reader.get(whole)
    assert [_written(n) for n in a] == [_written(n) for n in b]
    assert [n.content for n in a] == [r["content"] for r in _records(project, 150)]
    stored = _vectors(brain.db, [n.zk_id for n in a])
    # each holds the vector of its own text, not a neighbour's in the batch; the int8 runtime's
    # vector of a text moves a little with the texts batched beside it (cosine 0.985-0.99 to the
    # text encoded alone here, a templated neighbour's up to 0.986), so the test asks for the
    # nearest, not for equality
    for note in a[::37]:
        own = brain.embedder.encode(embed_text(note.title, note.content, note.context))
        closest = max(stored, key=lambda z: _cosine(stored[z], own))
        assert closest == note.zk_id and _cosine(stored[note.zk_id], own) > 0.98


def test_the_import_sends_vectors_that_print_as_their_length(
    brain: Brain, project: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The driver formats every statement's parameters for its debug log, on or off; 384
    floats printed cost more CPU than packing them. The vector sent is the one stored."""
    insert, sent = notes.insert_notes, []

    def kept(tx: Any, rows: list[dict[str, Any]], now: Any) -> list[str]:
        sent.extend(rows)
        return insert(tx, rows, now)

    monkeypatch.setattr("kg_brain.store.notes.insert_notes", kept)
    brain.importer.add_many(_records(project, 30), batch_size=10)
    assert len(sent) == 30
    assert {repr(row["embedding"]) for row in sent} == {"<384 floats>"}
    stored = _vectors(brain.db, [row["zk_id"] for row in sent])
    assert all(stored[row["zk_id"]] == list(row["embedding"]) for row in sent)


def test_a_failed_batch_stops_the_import_and_names_what_was_written(
    brain: Brain, project: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    insert, calls = notes.insert_notes, []

    def third_fails(tx: Any, rows: list[dict[str, Any]], now: Any) -> list[str]:
        calls.append(len(rows))
        if len(calls) == 3:
            raise StoreUnavailable(f"store went away ({uuid.uuid4().hex[:6]})")
        return insert(tx, rows, now)

    monkeypatch.setattr("kg_brain.store.notes.insert_notes", third_fails)
    seen: list[tuple[str, int]] = []
    with pytest.raises(StoreUnavailable,
                       match=r"writing records 41-60 failed: store went away .*records 1-40 "
                             r"were imported \(40 notes\), none after them"):
        brain.importer.add_many(_records(project, 100), batch_size=20,
                                progress=lambda phase, n: seen.append((phase, n)))
    assert calls == [20, 20, 20]
    assert _count(brain.db, project) == 40
    assert [n for phase, n in seen if phase == "imported"] == [20, 20]


def test_a_batch_run_again_after_its_commit_is_found_not_written_twice(
        brain: Brain, project: str) -> None:
    """The driver runs a write transaction function again after a fault it deems transient.
    When the attempt before had in fact committed (here: the batch written by a transaction of
    its own, then the fault), the batch is found: each note, MENTIONS and entity count once. A
    note of other content under one of its ids is still refused."""
    rows = [brain.importer.import_row({"content": text, "project": project}) for text in (
        "The ledger service retries failed payouts every ten minutes.",
        "The ledger service writes its audit log to the billing bucket.")]
    vectors = brain.embedder.encode_many(
        [embed_text(r["title"], r["content"], r["context"]) for r in rows])
    for row, vector in zip(rows, vectors, strict=True):
        row["embedding"] = vector
    now, attempts = brain.clock(), []

    def batch(tx: Tx) -> list[str]:
        attempts.append(tx)
        if len(attempts) == 1:
            brain.db.write_tx(lambda own: notes.insert_notes(own, rows, now))
            raise SessionExpired("the connection closed after the commit")
        return notes.insert_notes(tx, rows, now)

    assert brain.db.write_tx(batch) == [r["zk_id"] for r in rows] and len(attempts) == 2
    assert _count(brain.db, project) == 2
    mentions, _, _ = brain.db.driver.execute_query(
        "MATCH (e:Entity {project: $project}) RETURN e.key AS key, e.notes AS notes, "
        "COUNT { (:Note)-[:MENTIONS]->(e) } AS mentions, "
        "COUNT { MATCH (n:Note)-[:MENTIONS]->(e) RETURN DISTINCT n } AS notes_mentioning",
        project=project)
    assert mentions and all(r["notes"] == r["mentions"] == r["notes_mentioning"]
                            for r in mentions), mentions
    other = {**rows[1], "zk_id": rows[0]["zk_id"]}
    with pytest.raises(Conflict, match="already exists"):
        brain.db.write_tx(lambda tx: notes.insert_notes(tx, [other], now))
    assert brain.reader.get([rows[0]["zk_id"]])[0].content == rows[0]["content"]
    assert _count(brain.db, project) == 2
