"""The unit tier runs without Neo4j: a unit test that asks for the server fails at once instead of
provisioning one (the test belongs in tests/integration)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def neo4j_server() -> None:
    pytest.fail("a unit test needs no Neo4j: move it to tests/integration")
