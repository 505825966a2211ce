"""The Neo4j server the suite runs against: NEO4J_TEST_URI when set, else a Docker engine
(testcontainers, 5.26 only), else a local Community server provisioned from Maven Central on free
ports in a temporary home. NEO4J_VERSION picks the local server's line (`make test-neo4j-2026`
runs the 2026 line with the Java 21+ of JAVA_HOME). A run that cannot get a Neo4j fails: it never
skips. A parallel run (pytest-xdist) provisions it once, in the controller, and hands each worker
its description."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from kg_brain.store.db import Connection
from kg_brain.store.localdb import (
    LocalNeo4j,
    docker_engine_available,
    free_port,
    private_server,
)
from kg_brain.views.guide import write_browser_content
from tests.support.brains import make_settings


@dataclass(frozen=True)
class ServerUnderTest:
    conn: Connection
    http_url: str
    local: LocalNeo4j | None = None  # set when provisioned here, with its Browser guide

    def described(self) -> dict[str, Any]:
        """Plain values a worker process rebuilds the same server from (`described_server`)."""
        local = self.local
        return {"conn": asdict(self.conn), "http_url": self.http_url,
                "local": None if local is None else {
                    "home": str(local.home), "bolt_port": local.bolt_port,
                    "http_port": local.http_port, "heap": local.heap,
                    "pagecache": local.pagecache, "browser_port": local.browser_port}}


def described_server(description: dict[str, Any]) -> ServerUnderTest:
    """The server another process provisioned and described: used, never started or stopped."""
    local = description["local"]
    return ServerUnderTest(Connection(**description["conn"]), description["http_url"],
                           None if local is None else LocalNeo4j(**{**local,
                                                                    "home": Path(local["home"])}))


def configured_line() -> str:
    """How the suite's server's version starts: NEO4J_VERSION's lower bound, a calendar release
    by its year ("2026."), a 5.x release by its minor ("5.26.")."""
    major, minor = make_settings().neo4j_version.lstrip("[(").split(",")[0].split(".")[:2]
    return f"{major}." if int(major) >= 2025 else f"{major}.{minor}."


def _from_env() -> ServerUnderTest:
    uri = os.environ["NEO4J_TEST_URI"]
    host = uri.split("://", 1)[1].split(":", 1)[0].split("/", 1)[0]
    http = os.environ.get("NEO4J_TEST_HTTP_URL", f"http://{host}:7474")
    conn = Connection(uri, os.environ.get("NEO4J_TEST_USER", "neo4j"),
                      os.environ.get("NEO4J_TEST_PASSWORD"), "neo4j")
    return ServerUnderTest(conn, http)


def routed(server: ServerUnderTest) -> ServerUnderTest:
    """NEO4J_TEST_SCHEME=neo4j runs the whole suite through the routing driver (as against a
    cluster or Aura): reads go to readers, writes to the leader, causally chained."""
    scheme = os.environ.get("NEO4J_TEST_SCHEME", "bolt")
    if scheme not in ("bolt", "neo4j"):
        raise pytest.UsageError("NEO4J_TEST_SCHEME must be bolt or neo4j")
    uri = scheme + "://" + server.conn.uri.split("://", 1)[1]
    return replace(server, conn=replace(server.conn, uri=uri))


@contextmanager
def provision(home: Path) -> Iterator[ServerUnderTest]:
    if os.environ.get("NEO4J_TEST_URI"):
        yield _from_env()
        return
    if docker_engine_available() and make_settings().neo4j_version == LocalNeo4j.version_range:
        from testcontainers.neo4j import Neo4jContainer

        with Neo4jContainer("neo4j:5.26-community", password="kg-brain-test") as container:
            http = f"http://{container.get_container_host_ip()}:{container.get_exposed_port(7474)}"
            conn = Connection(container.get_connection_url(), "neo4j", "kg-brain-test", "neo4j")
            yield ServerUnderTest(conn, http)
        return
    with local_server(home) as server:
        yield server


@contextmanager
def local_server(home: Path) -> Iterator[ServerUnderTest]:
    """The provisioning `kg-brain neo4j start` does, on free ports in a temporary home, with the
    Browser guide and style served beside it."""
    server = private_server(home, make_settings(), heap="1g", pagecache="256m",
                            browser_port=free_port())
    write_browser_content(server.browser_dir)
    try:
        conn = server.start(timeout_s=180)
        yield ServerUnderTest(conn, f"http://127.0.0.1:{server.http_port}", server)
    finally:
        server.stop()
