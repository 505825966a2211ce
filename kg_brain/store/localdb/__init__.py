"""Provisioning a local Neo4j server: Docker Compose where an engine answers, else Maven + Java."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from kg_brain.base.settings import Settings
from kg_brain.store.localdb.server import LocalNeo4j, free_port

__all__ = ["LocalNeo4j", "docker_engine_available", "free_port", "local_server",
           "private_server"]


def docker_engine_available() -> bool:
    """True only when a Docker engine answers (the client alone is not enough)."""
    docker = shutil.which("docker")
    if docker is None:
        return False
    try:
        proc = subprocess.run([docker, "info", "--format", "{{.ServerVersion}}"],
                              capture_output=True, text=True, timeout=5, check=False)
    except (subprocess.TimeoutExpired, OSError):
        return False
    return proc.returncode == 0 and bool(proc.stdout.strip())


def local_server(settings: Settings) -> LocalNeo4j:
    """The user's local server: data under the XDG data directory, jars in the XDG cache."""
    return LocalNeo4j(
        home=Path(settings.kg_brain_data_dir) / "neo4j",
        bolt_port=settings.neo4j_bolt_port,
        http_port=settings.neo4j_http_port,
        heap=settings.neo4j_heap,
        pagecache=settings.neo4j_pagecache,
        version_range=settings.neo4j_version,
        password=settings.neo4j_password,
        cache_dir=settings.kg_brain_cache_dir,
        browser_port=settings.kg_brain_browser_port or None,
        java_home=settings.java_home,
    )


def private_server(home: Path, settings: Settings, heap: str, pagecache: str,
                   browser_port: int | None = None) -> LocalNeo4j:
    """A server of the configured line and Java (NEO4J_VERSION, JAVA_HOME) on free ports in
    `home`, beside the user's: the test suite's and the benches' own."""
    return LocalNeo4j(home=home, bolt_port=free_port(), http_port=free_port(), heap=heap,
                      pagecache=pagecache, version_range=settings.neo4j_version,
                      cache_dir=settings.kg_brain_cache_dir, browser_port=browser_port,
                      java_home=settings.java_home)
