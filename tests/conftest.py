"""Shared fixtures: a real Neo4j for the whole run, the real embedder, a project per test.

The server comes from tests/support/neo4j.py (NEO4J_TEST_URI, else testcontainers, else a local
server); a run that cannot get a Neo4j fails, and a skipped test fails the run. Each test is
marked with its tier, the folder it lives in (`pytest -m unit`, `-m "not e2e"`).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from kg_brain.db import Database
from kg_brain.embed import Embedder, build_embedder
from kg_brain.store.schema import bootstrap_schema
from tests.support.brains import make_settings
from tests.support.neo4j import ServerUnderTest, provision, routed

TIERS = ("unit", "integration", "mcp", "e2e")
ROUTING = ("routing: run again through the routing driver (neo4j://) by `make test-routing`: on "
           "one server only the routing-table step of each session differs from bolt://, so it "
           "marks one test of each way a session is opened (schema, reads, writes, autocommit "
           "imports, several drivers, the tools, a spawned server)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", ROUTING)


@pytest.fixture(scope="session")
def neo4j_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerUnderTest]:
    with provision(tmp_path_factory.mktemp("neo4j-home")) as server:
        yield routed(server)


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
