"""Shared fixtures: a real Neo4j for the whole run, the real embedder, a project per test.

The server comes from tests/support/neo4j.py (NEO4J_TEST_URI, else testcontainers, else a local
server); a run that cannot get a Neo4j fails, and a skipped test fails the run. Each test is
marked with its tier, the folder it lives in (`pytest -m unit`, `-m "not e2e"`).

A parallel run (`pytest -n 2 --dist loadfile`, as `make test`) provisions that server once, in
the controller, and every worker uses it; a module's tests run in one worker, so its fixtures are
set up once.
"""

from __future__ import annotations

import tempfile
import uuid
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from kg_brain.enrichment.embed import Embedder, build_embedder
from kg_brain.store.db import Database
from kg_brain.store.schema import bootstrap_schema
from tests.support.brains import make_settings
from tests.support.neo4j import (
    ServerUnderTest,
    described_server,
    local_server,
    provision,
    routed,
)

TIERS = ("unit", "integration", "mcp", "e2e")
ROUTING = ("routing: run again through the routing driver (neo4j://) by `make test-routing`: on "
           "one server only the routing-table step of each session differs from bolt://, so it "
           "marks one test of each way a session is opened (schema, reads, writes, autocommit "
           "imports, several drivers, the tools, a spawned server)")
SHARED = "kg_brain_neo4j"  # the key of the controller's server in each worker's input
PROVISIONED = pytest.StashKey[tuple[ExitStack, dict[str, Any]]]()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", ROUTING)


def pytest_sessionstart(session: pytest.Session) -> None:
    """In the controller of a parallel run, before its workers start: one server for all."""
    config = session.config
    if not config.pluginmanager.hasplugin("dsession"):
        return
    stack = ExitStack()
    home = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="kg-brain-neo4j-")))
    server = stack.enter_context(provision(home))
    database = Database(server.conn)
    try:  # once, here: workers bootstrapping a fresh server at once collide on its indexes
        bootstrap_schema(database)
    finally:
        database.close()
    config.stash[PROVISIONED] = (stack, server.described())


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist's hook: each worker is told which server the controller provisioned."""
    node.workerinput[SHARED] = node.config.stash[PROVISIONED][1]


def pytest_unconfigure(config: pytest.Config) -> None:
    if PROVISIONED in config.stash:
        config.stash[PROVISIONED][0].close()


@pytest.fixture(scope="session")
def neo4j_server(request: pytest.FixtureRequest,
                 tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerUnderTest]:
    given = getattr(request.config, "workerinput", {}).get(SHARED)
    if given is not None:
        yield routed(described_server(given))
        return
    with provision(tmp_path_factory.mktemp("neo4j-home")) as server:
        yield routed(server)


@pytest.fixture(scope="session")
def own_neo4j(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerUnderTest]:
    """A local server of the run's own beside the shared one, started on first use: for tests
    that restart it or drain the whole database (on the shared one they would take other runs'
    jobs). Started once per process that runs one of them."""
    with local_server(tmp_path_factory.mktemp("own-neo4j-home")) as server:
        yield server


@pytest.fixture(scope="session")
def db(neo4j_server: ServerUnderTest) -> Iterator[Database]:
    database = Database(neo4j_server.conn)
    database.verify()
    bootstrap_schema(database)
    yield database
    database.close()


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    """The runtime a server uses by default (EMBEDDING_RUNTIME), exported on first use."""
    return build_embedder(make_settings())


@pytest.fixture
def project() -> str:
    """Each test works in its own project namespace; nothing is ever wiped."""
    return f"test-{uuid.uuid4().hex[:12]}"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        tier = item.path.parent.name
        if tier in TIERS:
            item.add_marker(getattr(pytest.mark, tier))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A skipped test is a test that did not run: the suite fails instead of going quietly green."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = len(reporter.stats.get("skipped", [])) if reporter else 0
    if skipped and exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        if reporter:
            reporter.write_line(f"{skipped} test(s) skipped: every test must run", red=True)
