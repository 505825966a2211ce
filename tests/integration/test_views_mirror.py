"""The Obsidian mirror: REST path against a local HTTP server, vault folder, path safety."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from pathlib import Path, PurePosixPath
from typing import Any

import pytest
import yaml

from kg_brain.base.clock import utc_now
from kg_brain.base.cypher import query
from kg_brain.base.errors import InvalidInput
from kg_brain.base.vocab import LinkType
from kg_brain.enrichment.embed import SentenceTransformerEmbedder
from kg_brain.root.app import Brain
from kg_brain.store import jobs, views
from kg_brain.store.db import Database, Tx
from kg_brain.store.notes import create_notes, new_zk_id
from kg_brain.views.mirror import Mirror, RestApi, VaultFolder, note_path
from tests.support.brains import make_brain
from tests.support.obsidian import Vault, rest_api


@pytest.fixture
def rest_vault() -> Iterator[tuple[Vault, str]]:
    with rest_api() as found:
        yield found


def _frontmatter(text: str) -> dict[str, object]:
    assert text.startswith("---\n")
    return yaml.safe_load(text.split("---\n", 2)[1])


def _mirrored(db: Database, embedder: SentenceTransformerEmbedder, host: str,
              clock: Callable[[], datetime] = utc_now) -> Brain:
    """A Brain whose mirror writes to the REST vault at `host`."""
    return make_brain(db, embedder, clock=clock, obsidian_api_key="secret-key",
                      obsidian_host=host)


def _drain_until(mirror: Mirror, vault: Vault, path: str, needle: str) -> str:
    for _ in range(10):  # other runs' queued notes may share the queue
        mirror.drain()
        if needle in vault.files.get(path, ""):
            return vault.files[path]
    raise AssertionError(f"{path} never contained {needle!r}")


def test_rest_mirror_follows_add_link_update_archive_and_restore(
        db: Database, embedder: SentenceTransformerEmbedder, project: str,
        rest_vault: tuple[Vault, str]) -> None:
    """Every write queues what it changed in its own transaction, the notes it links to too:
    nothing is enqueued by hand here."""
    vault, host = rest_vault
    brain = _mirrored(db, embedder, host)
    mirror = brain.mirror
    fix = brain.writer.add("Pin httpx below 1.0 because 1.0 drops the sync client.", project,
                           note_kind="fix").note.zk_id
    other = brain.writer.add("httpx 1.0 removed the sync client that our CLI uses.", project,
                             note_kind="mistake").note.zk_id
    brain.db.write_tx(lambda tx: brain.writer.link(tx, fix, other, LinkType.FIXES,
                                                   "pinning avoids it", 0.9))
    path = f"/vault/brain/zk/{fix}.md"
    text = _drain_until(mirror, vault, path, "Pin httpx")
    front = _frontmatter(text)
    assert front["zk_id"] == fix and front["note_kind"] == "fix" and "embedding" not in front
    assert front["links"] == {"FIXES": [f"[[{other}|{_title(brain, other)}]]"]}
    assert "created" in front and "keywords" in front and "access_count" in front
    assert vault.auth[-1] == "Bearer secret-key"
    backlinked = _drain_until(mirror, vault, f"/vault/brain/zk/{other}.md", "## Linked from")
    assert f"[[{fix}|" in backlinked

    brain.writer.update(fix, "Pin httpx below 1.0: the 1.0 release drops the sync client we use.")
    assert "the 1.0 release" in _drain_until(mirror, vault, path, "the 1.0 release")

    later = _mirrored(db, embedder, host, clock=lambda: utc_now() + timedelta(days=800))
    archived = later.lifecycle.archive_stale(dry_run=False, project=project)
    assert fix in {c.zk_id for c in archived.candidates}
    assert _frontmatter(_drain_until(mirror, vault, path, "archived_at"))["memory_type"] == \
        "archived"
    later.lifecycle.restore(fix)
    _drain_until(mirror, vault, path, 'memory_type: "permanent"')


def _title(brain: Brain, zk_id: str) -> str:
    return brain.reader.get([zk_id])[0].title


def _mirror_job(db: Database, zk_id: str) -> list[Any]:
    return db.driver.execute_query(
        "MATCH (j:Job {key: $key}) RETURN j.state AS state, j.claimed_until AS retry",
        key=f"mirror:{zk_id}").records


def test_failing_target_keeps_the_job_for_a_retry(db: Database,
                                                  embedder: SentenceTransformerEmbedder,
                                                  project: str,
                                                  rest_vault: tuple[Vault, str]) -> None:
    vault, host = rest_vault
    vault.fail = True
    brain = _mirrored(db, embedder, host)
    zk_id = brain.writer.add("Obsidian must be running for the REST mirror.", project).note.zk_id
    for _ in range(5):
        brain.mirror.drain()
    rows = _mirror_job(db, zk_id)
    assert rows[0]["state"] == "pending" and rows[0]["retry"] is not None


class _Recording:
    """A mirror target that keeps what it was given and can run a change while it writes."""

    name = "recording"

    def __init__(self) -> None:
        self.puts: list[str] = []
        self.during_put: Callable[[], None] | None = None

    def put(self, path: PurePosixPath, text: str) -> None:
        self.puts.append(text)
        if self.during_put is not None:
            change, self.during_put = self.during_put, None
            change()

    def delete(self, path: PurePosixPath) -> None:
        raise AssertionError(f"nothing is deleted here: {path}")


def _job_state(db: Database, zk_id: str) -> tuple[str, int]:
    row = db.driver.execute_query("MATCH (j:Job {key: $key}) RETURN j.state AS s, j.attempts AS a",
                                  key=f"mirror:{zk_id}").records[0]
    return row["s"], row["a"]


def test_a_change_is_mirrored_again_only_when_it_came_after_the_claim(
        db: Database, embedder: SentenceTransformerEmbedder, project: str,
        tmp_path: Path) -> None:
    """A change queued before the claim is in the render: the job is done at its first attempt
    even when the writer's clock is ahead of the drain's (two processes). A change committed
    while the note is being written out leaves the job pending, and the next drain writes it,
    even when that writer's clock is behind the one the claim saw."""
    ahead = make_brain(db, embedder, clock=lambda: utc_now() + timedelta(minutes=1),
                       obsidian_vault_path=tmp_path / "vault")
    target = _Recording()
    mirror = Mirror(ahead.settings, db, utc_now, targets=[target])
    zk_id = ahead.writer.add("The release checklist lives in docs/RELEASING.md.",
                             project).note.zk_id
    assert mirror.drain(project=project) == 1
    assert _job_state(db, zk_id) == ("done", 1)
    late = make_brain(db, embedder, clock=lambda: utc_now() - timedelta(minutes=5),
                      obsidian_vault_path=tmp_path / "vault")
    target.during_put = lambda: late.writer.update(
        zk_id, "The release checklist moved to docs/release/CHECKLIST.md.")
    behind = make_brain(db, embedder, obsidian_vault_path=tmp_path / "vault")
    behind.writer.update(zk_id, "The release checklist lives in docs/RELEASING.md, step 4.")
    mirror.drain(project=project)  # changed while written out: pending again
    assert _job_state(db, zk_id)[0] == "pending"
    assert mirror.drain(project=project) == 1
    assert _job_state(db, zk_id) == ("done", 1)
    assert "docs/release/CHECKLIST.md" in target.puts[-1] and len(target.puts) == 3


def _blocked_on_a_lock(db: Database, marker: str) -> None:
    """Returns once a transaction running a statement that contains `marker` waits on a lock."""
    for _ in range(200):
        rows = db.driver.execute_query(
            "SHOW TRANSACTIONS YIELD currentQuery, status WHERE status STARTS WITH 'Blocked' "
            "AND currentQuery CONTAINS $marker RETURN count(*) AS n",
            marker=marker).records
        if rows[0]["n"]:
            return
        time.sleep(0.05)
    raise AssertionError(f"no statement with {marker!r} ever waited on a lock")


def test_an_ask_committing_while_the_job_settles_keeps_it_pending(
        db: Database, embedder: SentenceTransformerEmbedder, project: str,
        tmp_path: Path) -> None:
    """A note changed (its job asked for again) while the drain settles the job it claimed
    before: the settling waits for the ask's lock and then sees it, so the job stays pending and
    the next drain writes the newer state; it is never marked done over the ask."""
    brain = make_brain(db, embedder, obsidian_vault_path=tmp_path / "vault")
    zk_id = brain.writer.add("The nightly export writes parquet files to the archive bucket.",
                             project).note.zk_id
    key, now = f"mirror:{zk_id}", utc_now()
    claimed = jobs.claim_project_jobs(db, kind="mirror", project=project, now=now,
                                      until=now + timedelta(minutes=2), limit=10, worker="test")
    assert [job["key"] for job in claimed] == [key]
    settled: list[Any] = []
    settling = threading.Thread(target=lambda: settled.append(views.finish_mirror_job(
        db, key=key, now=utc_now(), state="done", retry_at=None, error=None)))
    with db.driver.session(database=db.conn.database) as session:
        ask = session.begin_transaction()  # the ask holds the job's write lock, uncommitted
        ask.run(query("views/enqueue_mirror_jobs", db.line), zk_ids=[zk_id],
                now=utc_now()).consume()
        settling.start()
        _blocked_on_a_lock(db, "claimed_requests")
        ask.commit()
    settling.join(timeout=60)
    assert settled[0]["state"] == "pending"
    assert _job_state(db, zk_id) == ("pending", 0)
    assert brain.mirror.drain(project=project) == 1
    assert _job_state(db, zk_id) == ("done", 1)


def test_a_write_that_rolls_back_leaves_no_mirror_job(db: Database,
                                                      embedder: SentenceTransformerEmbedder,
                                                      project: str,
                                                      rest_vault: tuple[Vault, str]) -> None:
    brain = _mirrored(db, embedder, rest_vault[1])
    row = {"zk_id": new_zk_id(), "content": "never committed", "project": project,
           "memory_type": "permanent", "note_kind": "general", "embedding": [0.1] * 384}

    def fail_after_writing(tx: Tx) -> None:
        create_notes(tx, rows=[row])
        raise RuntimeError("crash before commit")

    with pytest.raises(RuntimeError):
        brain.db.write_tx(fail_after_writing)
    assert _mirror_job(db, row["zk_id"]) == []
    brain.db.write_tx(lambda tx: create_notes(tx, rows=[row]))
    assert _mirror_job(db, row["zk_id"])[0]["state"] == "pending"


def test_an_add_queues_its_note_and_those_it_links_once_in_its_own_write(
        db: Database, embedder: SentenceTransformerEmbedder, project: str,
        tmp_path: Path) -> None:
    """add_memory arms the mirror's jobs in its write statement: the new note's and the note
    it links to (whose backlinks changed), each asked once, and no statement of their own."""
    brain = make_brain(db, embedder, obsidian_vault_path=tmp_path)
    first = brain.writer.add("The ingest worker retries Kafka reads with exponential backoff.",
                             project).note.zk_id
    before = brain.db.statements_run
    added = brain.writer.add("The ingest worker's Kafka consumer retries back off up to 30 s.",
                             project)
    assert brain.db.statements_run - before == 2  # the nearest notes, then the write
    assert first in {link.zk_id for link in added.note.links}
    asked = dict(db.driver.execute_query(
        "UNWIND $ids AS id MATCH (j:Job {key: 'mirror:' + id}) WHERE j.state = 'pending' "
        "RETURN id, j.requests AS requests", ids=[first, added.note.zk_id]).records)
    assert asked == {first: 2, added.note.zk_id: 1}


def test_without_a_mirror_writes_queue_nothing(brain: Brain, project: str) -> None:
    zk_id = brain.writer.add("No vault is configured for this brain.", project).note.zk_id
    assert _mirror_job(brain.db, zk_id) == []


def test_vault_folder_gets_the_file_and_loses_it_with_the_note(
        brain: Brain, project: str, tmp_path: Path) -> None:
    mirror = Mirror(brain.settings, brain.db, brain.clock, targets=[VaultFolder(tmp_path)])
    zk_id = brain.writer.add("Vault files are named after the zk_id.", project).note.zk_id
    assert mirror.sync([zk_id]) == 1
    file = tmp_path / "brain" / "zk" / f"{zk_id}.md"
    assert _frontmatter(file.read_text(encoding="utf-8"))["project"] == project
    brain.db.driver.execute_query("MATCH (n:Note {zk_id: $z}) OPTIONAL MATCH "
                                  "(p:Sentence)-[:SENTENCE_OF]->(n) DETACH DELETE n, p", z=zk_id)
    mirror.sync([zk_id])
    assert not file.exists()


@pytest.mark.parametrize("subfolder,zk_id", [
    ("../outside", "ZK-0000ABCD"), ("/etc", "ZK-0000ABCD"), ("brain", "../../x"),
    ("brain", "ZK-0000ABCD/../../x"), ("C:/x", "ZK-0000ABCD"),
])
def test_paths_cannot_leave_the_vault(subfolder: str, zk_id: str) -> None:
    with pytest.raises(InvalidInput):
        note_path(subfolder, zk_id)


def test_a_symlinked_folder_cannot_lead_out_of_the_vault(tmp_path: Path) -> None:
    vault, outside = tmp_path / "vault", tmp_path / "outside"
    vault.mkdir()
    outside.mkdir()
    (vault / "brain").symlink_to(outside)
    with pytest.raises(InvalidInput):
        VaultFolder(vault).put(note_path("brain", "ZK-0000ABCD"), "x")
    assert not list(outside.iterdir())


def test_rest_urls_quote_the_path() -> None:
    api = RestApi("http://127.0.0.1:27123/", "k")
    assert api._url(PurePosixPath("my brain/zk/ZK-0000ABCD.md")) == \
        "http://127.0.0.1:27123/vault/my%20brain/zk/ZK-0000ABCD.md"
