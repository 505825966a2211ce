"""The Obsidian mirror: REST path against a local HTTP server, vault folder, path safety."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path, PurePosixPath

import pytest
import yaml

from kg_brain.db import Connection, Database
from kg_brain.embed import SentenceTransformerEmbedder
from kg_brain.errors import InvalidInput
from kg_brain.lifecycle import Lifecycle
from kg_brain.memory import Memory
from kg_brain.store.model import LinkType
from kg_brain.views.mirror import Mirror, RestApi, VaultFolder, note_path
from tests.integration.views_support import memory_for, settings_for


class Vault:
    """A stand-in for the Local REST API plugin: stores PUT bodies by path."""

    def __init__(self) -> None:
        self.files: dict[str, str] = {}
        self.auth: list[str] = []
        self.fail = False


@pytest.fixture
def rest_vault() -> Iterator[tuple[Vault, str]]:
    vault = Vault()

    class Handler(BaseHTTPRequestHandler):
        def do_PUT(self) -> None:  # noqa: N802 - http.server's naming
            body = self.rfile.read(int(self.headers["Content-Length"])).decode("utf-8")
            vault.auth.append(self.headers.get("Authorization", ""))
            if vault.fail:
                self.send_response(500)
            else:
                vault.files[self.path] = body
                self.send_response(204)
            self.end_headers()

        def do_DELETE(self) -> None:  # noqa: N802
            vault.files.pop(self.path, None)
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield vault, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _frontmatter(text: str) -> dict[str, object]:
    assert text.startswith("---\n")
    return yaml.safe_load(text.split("---\n", 2)[1])


def _mirror(memory: Memory, host: str) -> Mirror:
    settings = settings_for(memory.db, obsidian_api_key="secret-key", obsidian_host=host)
    return Mirror(settings, memory.db, memory.clock)


def _drain_until(mirror: Mirror, vault: Vault, path: str, needle: str) -> str:
    for _ in range(10):  # other runs' queued notes may share the queue
        mirror.drain()
        if needle in vault.files.get(path, ""):
            return vault.files[path]
    raise AssertionError(f"{path} never contained {needle!r}")


@pytest.fixture
def memory(db: Database, embedder: SentenceTransformerEmbedder) -> Memory:
    return memory_for(db, embedder)


def test_rest_mirror_follows_add_update_archive_and_restore(
        memory: Memory, project: str, rest_vault: tuple[Vault, str],
        embedder: SentenceTransformerEmbedder) -> None:
    vault, host = rest_vault
    mirror = _mirror(memory, host)
    fix = memory.add("Pin httpx below 1.0 because 1.0 drops the sync client.", project,
                     note_kind="fix").note.zk_id
    other = memory.add("httpx 1.0 removed the sync client that our CLI uses.", project,
                       note_kind="mistake").note.zk_id
    memory.db.write_tx(lambda tx: memory.link(tx, fix, other, LinkType.FIXES,
                                              "pinning avoids it", 0.9))
    assert mirror.enqueue([fix]) == 1
    path = f"/vault/brain/zk/{fix}.md"
    text = _drain_until(mirror, vault, path, "Pin httpx")
    front = _frontmatter(text)
    assert front["zk_id"] == fix and front["note_kind"] == "fix" and "embedding" not in front
    assert front["links"] == {"FIXES": [f"[[{other}|{_title(memory, other)}]]"]}
    assert "created" in front and "keywords" in front and "access_count" in front
    assert vault.auth[-1] == "Bearer secret-key"

    memory.update(fix, "Pin httpx below 1.0: the 1.0 release drops the sync client we use.")
    mirror.enqueue([fix])
    assert "the 1.0 release" in _drain_until(mirror, vault, path, "the 1.0 release")

    later = memory.clock() + timedelta(days=800)
    lifecycle = Lifecycle(memory.settings, memory.db, embedder, memory.enricher, lambda: later)
    archived = lifecycle.archive_stale(dry_run=False, project=project)
    assert fix in {c.zk_id for c in archived.candidates}
    mirror.enqueue([fix])
    assert _frontmatter(_drain_until(mirror, vault, path, "archived_at"))["memory_type"] == \
        "archived"
    lifecycle.restore(fix)
    mirror.enqueue([fix])
    _drain_until(mirror, vault, path, 'memory_type: "permanent"')


def _title(memory: Memory, zk_id: str) -> str:
    return memory.get([zk_id])[0].title


def test_failing_target_keeps_the_job_for_a_retry(memory: Memory, project: str,
                                                  rest_vault: tuple[Vault, str]) -> None:
    vault, host = rest_vault
    vault.fail = True
    mirror = _mirror(memory, host)
    zk_id = memory.add("Obsidian must be running for the REST mirror.", project).note.zk_id
    mirror.enqueue([zk_id])
    for _ in range(5):
        mirror.drain()
    rows = memory.db.driver.execute_query(
        "MATCH (j:Job {key: $key}) RETURN j.state AS state, j.claimed_until AS retry",
        key=f"mirror:{zk_id}").records
    assert rows[0]["state"] == "pending" and rows[0]["retry"] is not None


def test_enqueue_never_raises_when_the_database_is_down(memory: Memory) -> None:
    down = Database(Connection("bolt://127.0.0.1:1", "neo4j", "x", "neo4j"), timeout_s=1)
    mirror = Mirror(memory.settings, down, memory.clock, targets=[VaultFolder(Path("/tmp"))])
    try:
        assert mirror.enqueue(["ZK-00000000"]) == 0
    finally:
        down.close()


def test_vault_folder_gets_the_file_and_loses_it_with_the_note(
        memory: Memory, project: str, tmp_path: Path) -> None:
    mirror = Mirror(memory.settings, memory.db, memory.clock, targets=[VaultFolder(tmp_path)])
    zk_id = memory.add("Vault files are named after the zk_id.", project).note.zk_id
    assert mirror.sync([zk_id]) == 1
    file = tmp_path / "brain" / "zk" / f"{zk_id}.md"
    assert _frontmatter(file.read_text(encoding="utf-8"))["project"] == project
    memory.db.driver.execute_query("MATCH (n:Note {zk_id: $z}) DETACH DELETE n", z=zk_id)
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
