"""Wiring: resolve where Neo4j is, build the database, embedder and enricher once per process."""

from __future__ import annotations

import logging
import subprocess
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from typing import TYPE_CHECKING

from kg_brain.db import Connection, Database
from kg_brain.embed import Embedder, SentenceTransformerEmbedder
from kg_brain.localdb import docker_engine_available, local_server
from kg_brain.settings import Settings

if TYPE_CHECKING:
    from kg_brain.lifecycle import Lifecycle
    from kg_brain.llm.types import Enricher
    from kg_brain.memory import Memory
    from kg_brain.search import Search
    from kg_brain.store.share import IndexFetch

log = logging.getLogger(__name__)
Clock = Callable[[], datetime]
COMPOSE_FILE = Path(__file__).resolve().parent.parent / "docker-compose.yml"


def utc_now() -> datetime:
    return datetime.now(UTC)


def resolve_connection(settings: Settings, start: bool = True) -> Connection:
    """NEO4J_URI if set; else Docker Compose when an engine answers; else the local server."""
    if settings.neo4j_uri:
        return Connection(settings.neo4j_uri, settings.neo4j_user, settings.neo4j_password,
                          settings.neo4j_database)
    if COMPOSE_FILE.exists() and docker_engine_available():
        if start:
            subprocess.run(["docker", "compose", "-f", str(COMPOSE_FILE), "up", "-d", "--wait"],
                           check=True, stdout=subprocess.DEVNULL)
        password = settings.neo4j_password or "kg-brain-local"
        return Connection(f"bolt://127.0.0.1:{settings.neo4j_bolt_port}", settings.neo4j_user,
                          password, settings.neo4j_database)
    server = local_server(settings)
    if start:
        from kg_brain.views.guide import write_browser_content

        write_browser_content(server.browser_dir)  # the Browser guide and style, kept current
        return server.start()
    return server.connection(settings.neo4j_database)


class Brain:
    """Everything a tool call needs, built lazily and once: the server answers `initialize`
    without waiting for Neo4j or the model."""

    def __init__(self, settings: Settings, db: Database | None = None,
                 embedder: Embedder | None = None, clock: Clock = utc_now) -> None:
        self.settings = settings
        self.clock = clock
        self._db = db
        self._embedder = embedder
        self._enricher: Enricher | None = None
        self._index_fetch: IndexFetch | None = None
        self._db_lock = threading.Lock()  # separate locks: connecting and model loading
        self._model_lock = threading.Lock()  # may run at the same time

    @property
    def db(self) -> Database:
        with self._db_lock:
            if self._db is None:
                conn = resolve_connection(self.settings)
                database = Database(conn, self.settings.neo4j_timeout_s)
                try:
                    database.verify()
                    database.bootstrap_schema()
                except Exception:
                    database.close()
                    raise
                self._db = database
            return self._db

    @property
    def index_fetch(self) -> IndexFetch:
        """Shared by every search and write of the process, so project shares stay cached."""
        from kg_brain.store.share import IndexFetch

        db = self.db
        with self._db_lock:
            if self._index_fetch is None:
                self._index_fetch = IndexFetch(db)
            return self._index_fetch

    @property
    def embedder(self) -> Embedder:
        with self._model_lock:
            if self._embedder is None:
                self._embedder = SentenceTransformerEmbedder(self.settings.embedding_model,
                                                             self.settings.embedding_batch_size)
            return self._embedder

    @property
    def enricher(self) -> Enricher:
        embedder = self.embedder
        with self._model_lock:
            if self._enricher is None:
                from kg_brain.llm import build_enricher

                self._enricher = build_enricher(self.settings, embedder)
            return self._enricher

    @property
    def memory(self) -> Memory:
        from kg_brain.memory import Memory

        return Memory(self.settings, self.db, self.embedder, self.enricher, self.clock,
                      self.index_fetch)

    @property
    def search(self) -> Search:
        from kg_brain.search import Search

        return Search(self.settings, self.db, self.embedder, self.clock,
                      index_fetch=self.index_fetch)

    @property
    def lifecycle(self) -> Lifecycle:
        from kg_brain.lifecycle import Lifecycle

        return Lifecycle(self.settings, self.db, self.embedder, self.enricher, self.clock)

    def close(self) -> None:
        if self._db is not None:
            self._db.close()

