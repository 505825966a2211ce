"""Background work runs wherever memory is written: in every setup the README describes, the
evolution and Obsidian mirror queues drain within seconds of a write made through a real server
process, and several servers on one database run each job once (one worker per project's queue,
behind its lease).

These tests run whole-database drains (the shared service's), so they use the run's second Neo4j
(`own_neo4j`): on the shared test database they would take other runs' queued jobs. Every process
they start is stopped at the end."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench.cold_start import StdioSession
from kg_brain.enrichment.embed import Embedder
from kg_brain.store.db import Database
from kg_brain.store.localdb import free_port
from kg_brain.store.schema import bootstrap_schema
from kg_brain.surfaces.leasing import Leases
from kg_brain.surfaces.maintenance import Maintenance
from tests.mcp.test_relay import window
from tests.mcp.test_service import kg, service_pid
from tests.mcp.test_stdio import workspace
from tests.support.brains import make_brain
from tests.support.mcp import REPO, bearer, server_env
from tests.support.neo4j import ServerUnderTest
from tests.support.obsidian import Vault, rest_api

PAIRS = [  # the second note of each pair links to the first strongly enough to evolve it
    ("Flaky CI runs come from tests sharing one Neo4j database without project isolation.",
     "Give every test its own project namespace so flaky CI runs caused by a shared Neo4j "
     "database go away."),
    ("Neo4j vector indexes in 5.26 cannot filter by property, so queries over-fetch candidates "
     "and filter by project afterwards.",
     "Over-fetching from the Neo4j vector index needs a larger k when many projects share one "
     "database, otherwise a small project's notes fall out of the candidate list."),
]
LONE = ["The office espresso machine is descaled with citric acid every second Friday.",
        "Invoices to Dutch customers carry the reverse-charge VAT notice in the footer.",
        "The team offsite in April is booked at a lakeside hotel near Annecy."]
SETTLE_S = 30.0  # the drains fire every second; the bound allows for a loaded machine
# The cron jobs only on 29 February: the drains are what these tests are about.
DRAINS = {"SCHEDULER_IN_SERVER": "true", "EVOLUTION_INTERVAL_S": "1",
          "ARCHIVE_CRON": "0 3 29 2 *", "CONSOLIDATION_CRON": "30 3 29 2 *",
          "FORGET_PURGE_CRON": "45 3 29 2 *"}


@pytest.fixture(scope="module")
def own_db(own_neo4j: ServerUnderTest) -> Iterator[Database]:
    database = Database(own_neo4j.conn)
    bootstrap_schema(database)
    yield database
    database.close()


@pytest.fixture
def obsidian() -> Iterator[tuple[Vault, str]]:
    with rest_api() as found:
        yield found


@pytest.fixture
def env(own_neo4j: ServerUnderTest, obsidian: tuple[Vault, str],
        tmp_path: Path) -> Iterator[dict[str, str]]:
    """What every server of a test gets: its drains on, the vault folder and the REST vault as
    mirror targets; the windows serve themselves unless a test says otherwise. A service that
    answers on the test's port at the end is stopped."""
    found = server_env(own_neo4j, PYTHONPATH=str(REPO), KG_BRAIN_DATA_DIR=str(tmp_path / "data"),
                       KG_BRAIN_HTTP_PORT=str(free_port()), OBSIDIAN_API_KEY="obsidian-key",
                       OBSIDIAN_HOST=obsidian[1], OBSIDIAN_VAULT_PATH=str(tmp_path / "vault"),
                       **DRAINS)
    yield found
    if service_pid(found) is not None:
        kg(found, "service", "stop")


def jobs_of(db: Database, project: str) -> list[dict[str, Any]]:
    rows, _, _ = db.driver.execute_query(
        "MATCH (j:Job {project: $project}) RETURN j.key AS key, j.kind AS kind, "
        "j.state AS state, j.attempts AS attempts", project=project, database_=db.conn.database)
    return [dict(row) for row in rows]


def linked_notes(db: Database, project: str) -> set[str]:
    rows, _, _ = db.driver.execute_query(
        "MATCH (n:Note {project: $project})-[r]-(:Note) WHERE type(r) <> 'FOLLOWS' "
        "RETURN DISTINCT n.zk_id AS zk_id",
        project=project, database_=db.conn.database)
    return {row["zk_id"] for row in rows}


def settled(db: Database, project: str, written: list[str], vault: Vault,
            folder: Path) -> float:
    """Seconds until every job of the project is done and every written note's file is in both
    mirror targets; fails after SETTLE_S."""
    began = time.monotonic()
    while True:
        queue = jobs_of(db, project)
        files = {z for z in written if (folder / "brain" / "zk" / f"{z}.md").exists()}
        if (queue and all(j["state"] == "done" for j in queue) and files == set(written)
                and set(written) <= set(vault.puts())):
            return time.monotonic() - began
        assert time.monotonic() - began < SETTLE_S, (queue, files, vault.puts())
        time.sleep(0.2)


def logged(path: Path, line: str) -> str:
    """The log at `path` once it holds `line`; fails after SETTLE_S. A drain logs what it did
    after its last batch, so a running service may log a job a moment after it is done."""
    began = time.monotonic()
    while line not in (text := path.read_text()):
        assert time.monotonic() - began < SETTLE_S, text
        time.sleep(0.2)
    return text


def added(session: StdioSession, content: str) -> dict[str, Any]:
    answer = session.call_tool("add_memory", {"content": content})["result"]
    return dict(answer["structuredContent"])


def remembered(env: dict[str, str], folder: Path, text: str) -> dict[str, Any]:
    """A write through the service's plugin endpoint: no MCP session, no tools/list."""
    port = env["KG_BRAIN_HTTP_PORT"]
    reply = httpx.post(f"http://127.0.0.1:{port}/plugin/remember", headers=bearer(env),
                       json={"text": text, "directory": str(folder)}, timeout=180)
    assert reply.status_code == 200, reply.text
    return dict(reply.json())


def test_a_window_served_in_process_drains_both_queues_of_its_project(
        own_db: Database, env: dict[str, str], obsidian: tuple[Vault, str], project: str,
        tmp_path: Path) -> None:
    """stdio only: no shared service, no `kg-brain scheduler`."""
    with window(env, workspace(tmp_path, project)) as alone:
        alone.initialize()
        notes = [added(alone, text) for text in PAIRS[0]]
        seconds = settled(own_db, project, [n["zk_id"] for n in notes], obsidian[0],
                          tmp_path / "vault")
        log = alone.close()
    assert notes[1]["evolution_queued"] and "forwarding" not in log
    assert {j["kind"] for j in jobs_of(own_db, project)} == {"evolve", "mirror"}
    assert f"evolution drain of {project}: 1 job(s) done" in log, log
    assert seconds < SETTLE_S


def test_the_shared_service_drains_writes_that_came_without_a_tool_list(
        own_db: Database, env: dict[str, str], obsidian: tuple[Vault, str], project: str,
        tmp_path: Path) -> None:
    """`kg-brain service start`, written to only through the plugin endpoint."""
    assert kg(env, "service", "start").returncode == 0
    folder = workspace(tmp_path, project)
    notes = [remembered(env, folder, text) for text in PAIRS[0]]
    assert {n["project"] for n in notes} == {project}
    settled(own_db, project, [n["zk_id"] for n in notes], obsidian[0], tmp_path / "vault")
    log = logged(tmp_path / "data" / "state" / "service.log",
                 f"evolution drain of {project}: 1 job(s) done")
    assert "maintenance scheduler running in the server" in log


def test_windows_and_the_service_on_one_project_run_each_job_once(
        own_db: Database, env: dict[str, str], obsidian: tuple[Vault, str], project: str,
        tmp_path: Path) -> None:
    """Two windows served in-process (opened before any service ran) and the shared service,
    all writing to one project: every job is claimed once and every note written once per
    change."""
    folder = workspace(tmp_path, project)
    assert kg(env, "service", "start").returncode == 0
    with ExitStack() as stack:
        first, second = (stack.enter_context(window(env, folder)) for _ in range(2))
        for win in (first, second):
            win.initialize()
        writers: list[Callable[[str], dict[str, Any]]] = [
            lambda text: added(first, text), lambda text: added(second, text),
            lambda text: remembered(env, folder, text)]
        notes = [writers[0](PAIRS[0][0]), writers[1](PAIRS[0][1]),
                 writers[2](PAIRS[1][0]), writers[0](PAIRS[1][1])]
        notes += [write(text) for write, text in zip(writers, LONE, strict=True)]
        settled(own_db, project, [n["zk_id"] for n in notes], obsidian[0], tmp_path / "vault")
        time.sleep(3)  # a second run of any job would land by now
        logs = [win.close() for win in (first, second)]
    assert all("forwarding" not in log for log in logs)
    queue = jobs_of(own_db, project)
    assert sum(j["kind"] == "evolve" for j in queue) == 2
    assert all(j["state"] == "done" and j["attempts"] == 1 for j in queue), queue
    lone = [n["zk_id"] for n in notes[4:]]
    assert not set(lone) & linked_notes(own_db, project)
    # written once, and at most once more when the next note written FOLLOWS it (its "Linked
    # from" changes; a mirror queue still holding the first write sends both as one)
    followed, _, _ = own_db.driver.execute_query(
        "UNWIND $ids AS id MATCH (n:Note {zk_id: id}) "
        "RETURN id, COUNT { (n)<-[:FOLLOWS]-(:Note) } AS followers",
        ids=lone, database_=own_db.conn.database)
    puts = obsidian[0].puts()
    assert all(1 <= puts[r["id"]] <= 1 + r["followers"] for r in followed), puts


def test_the_whole_database_drain_leaves_a_project_to_the_window_holding_its_lease(
        own_db: Database, embedder: Embedder, project: str, tmp_path: Path) -> None:
    """A window holds its project's drain leases: the service's drain passes the project by,
    and takes it once they are free."""
    brain = make_brain(Database(own_db.conn), embedder, obsidian_vault_path=tmp_path / "vault")
    try:
        for text in PAIRS[0]:
            brain.writer.add(text, project)
        window_leases = Leases(own_db, brain.clock, "a-window")
        drains = (f"evolution-drain:{project}", f"sentence-drain:{project}",
                  f"mirror-drain:{project}")
        for lease in drains:
            assert window_leases.acquire(lease, timedelta(seconds=60))
        service = Maintenance(brain)
        service.evolution_drain()
        service.sentence_drain()
        service.mirror_drain()
        assert {j["state"] for j in jobs_of(own_db, project)} == {"pending"}
        for lease in drains:
            window_leases.release(lease)
        service.evolution_drain()
        service.sentence_drain()
        service.mirror_drain()
        # a sentences job leaves nothing once it ran
        assert {(j["kind"], j["state"]) for j in jobs_of(own_db, project)} == {
            ("evolve", "done"), ("mirror", "done")}
    finally:
        brain.close()
