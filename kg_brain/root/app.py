"""The composition root: resolve where Neo4j is, build the dependency bundle once per process,
and every service on it, each once, on first use.

Building a Brain touches neither Neo4j nor the embedding model, so the MCP server answers
`initialize` at once; the first service a tool call asks for connects, bootstraps the schema
and wires the Obsidian mirror's queue into every write transaction (when the mirror is set up).

What connects or serves (the local server's provisioning, neomodel's schema bootstrap, the
Obsidian mirror's HTTP client) is imported when first needed, so that a server lists its tools
with none of it loaded; the driver itself loads with the first Database (kg_brain/store/db.py).

Closing is ordered: `stopping` is set (drains end between two jobs), whatever registered with
`on_close` (the maintenance scheduler) is stopped and waited for, the access stamps still
waiting are written, the transactions in flight finish, and only then does the driver close.
"""

from __future__ import annotations

import signal
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, TypeVar

from kg_brain.base.clock import Clock, utc_now
from kg_brain.base.settings import Settings
from kg_brain.domain.access import AccessStamps
from kg_brain.domain.browsing import Browsing
from kg_brain.domain.consolidation import Consolidator
from kg_brain.domain.curation import Curation
from kg_brain.domain.deps import Deps
from kg_brain.domain.lifecycle import Lifecycle
from kg_brain.domain.memory.bulk import Importer
from kg_brain.domain.memory.evolution import Evolution
from kg_brain.domain.memory.reading import NoteReader
from kg_brain.domain.memory.revisions import Revisions
from kg_brain.domain.memory.sentences import SentenceJobs
from kg_brain.domain.memory.write import Writer
from kg_brain.domain.mistakes import Mistakes
from kg_brain.domain.projects import Projects
from kg_brain.domain.search import Search
from kg_brain.domain.sessions import Sessions
from kg_brain.domain.stats import Stats
from kg_brain.enrichment.embed import Embedder, build_embedder
from kg_brain.enrichment.llm import build_enricher
from kg_brain.store.db import Connection, Database
from kg_brain.store.share import IndexFetch

if TYPE_CHECKING:
    from kg_brain.views.mirror import Mirror

COMPOSE_FILE = Path(__file__).resolve().parents[2] / "docker-compose.yml"
S = TypeVar("S")


def resolve_connection(settings: Settings, start: bool = True) -> Connection:
    """NEO4J_URI if set; else Docker Compose when an engine answers; else the local server."""
    from kg_brain.store.localdb import docker_engine_available, local_server
    from kg_brain.views.guide import write_browser_content

    if settings.neo4j_uri:
        return Connection(settings.neo4j_uri, settings.neo4j_user, settings.neo4j_password,
                          settings.neo4j_database)
    if COMPOSE_FILE.exists() and docker_engine_available():
        if start:
            subprocess.run(["docker", "compose", "-f", str(COMPOSE_FILE), "up", "-d", "--wait"],
                           check=True, stdout=subprocess.DEVNULL)
        password = settings.neo4j_password or "kg-brain-local"
        return Connection(f"bolt://127.0.0.1:{settings.neo4j_bolt_port}", settings.neo4j_user,
                          password, settings.neo4j_database, local=True)
    server = local_server(settings)
    if start:
        write_browser_content(server.browser_dir)  # the Browser guide and style, kept current
        return server.start()
    return server.connection(settings.neo4j_database)


def connect(settings: Settings) -> Database:
    """A verified connection with the schema in place."""
    from kg_brain.store.schema import bootstrap_schema

    database = Database(resolve_connection(settings), settings.neo4j_timeout_s,
                        settings.secrets_mode)
    try:
        database.verify()
        bootstrap_schema(database)
    except Exception:
        database.close()
        raise
    return database


class Brain:
    """Everything a tool call needs, built lazily and once per process."""

    def __init__(self, settings: Settings, db: Database | None = None,
                 embedder: Embedder | None = None, clock: Clock = utc_now) -> None:
        self.settings = settings
        self.clock = clock
        self._given_db = db
        self._embedder = embedder
        self._services: dict[str, object] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()
        self.stopping = threading.Event()
        self._on_close: list[Callable[[], None]] = []

    def _once(self, name: str, build: Callable[[], S]) -> S:
        """One lock per service: connecting to Neo4j never waits for the model, or the other
        way round; services depend on each other without cycles, so the locks cannot deadlock."""
        with self._guard:
            lock = self._locks.setdefault(name, threading.Lock())
        with lock:
            if name not in self._services:
                self._services[name] = build()
            return self._services[name]  # type: ignore[return-value]

    @property
    def embedder(self) -> Embedder:
        """Cheap to build: the model itself loads on the first encode."""
        return self._once("embedder",
                          lambda: self._embedder or build_embedder(self.settings))

    @property
    def mirror(self) -> Mirror:
        from kg_brain.views.mirror import Mirror

        return self._once("mirror", lambda: Mirror(self.settings, self.db, self.clock))

    @property
    def db(self) -> Database:
        """Connected and bootstrapped on first use; writes record the notes they change for
        the mirror in the same transaction when the mirror is set up."""
        return self._once("db", self._database)

    def _database(self) -> Database:
        from kg_brain.views.mirror import Mirror

        database = self._given_db or connect(self.settings)
        if not Mirror.configured(self.settings):
            return database
        bound = database.bound()
        bound.on_changes = Mirror.recorder(self.clock)
        bound.mirrors = True
        return bound

    @property
    def deps(self) -> Deps:
        return self._once("deps", lambda: Deps(
            settings=self.settings, db=self.db, embedder=self.embedder,
            enricher=build_enricher(self.settings), clock=self.clock,
            index_fetch=IndexFetch(self.db), access=AccessStamps(self.db),
            stopping=self.stopping))

    @property
    def reader(self) -> NoteReader:
        return self._once("reader", lambda: NoteReader(self.deps))

    @property
    def writer(self) -> Writer:
        return self._once("writer", lambda: Writer(self.deps, self.reader))

    @property
    def importer(self) -> Importer:
        return self._once("importer", lambda: Importer(self.deps, self.writer))

    @property
    def evolution(self) -> Evolution:
        return self._once("evolution", lambda: Evolution(self.deps))

    @property
    def sentence_jobs(self) -> SentenceJobs:
        return self._once("sentence_jobs", lambda: SentenceJobs(self.deps))

    @property
    def revisions(self) -> Revisions:
        return self._once("revisions", lambda: Revisions(self.deps, self.reader, self.writer))

    @property
    def search(self) -> Search:
        return self._once("search", lambda: Search(self.deps))

    @property
    def lifecycle(self) -> Lifecycle:
        return self._once("lifecycle", lambda: Lifecycle(self.deps, self.reader))

    @property
    def consolidation(self) -> Consolidator:
        return self._once("consolidation", lambda: Consolidator(self.deps))

    @property
    def sessions(self) -> Sessions:
        return self._once("sessions", lambda: Sessions(self.deps, self.writer))

    @property
    def mistakes(self) -> Mistakes:
        return self._once("mistakes", lambda: Mistakes(self.deps, self.reader, self.writer))

    @property
    def curation(self) -> Curation:
        return self._once("curation", lambda: Curation(self.deps, self.reader, self.writer,
                                                       self.revisions))

    @property
    def browsing(self) -> Browsing:
        return self._once("browsing", lambda: Browsing(self.deps))

    @property
    def projects(self) -> Projects:
        """Needs the database only: resolving a call's project never loads the model."""
        return self._once("projects", lambda: Projects(self.db, self.clock))

    @property
    def stats(self) -> Stats:
        return self._once("stats", lambda: Stats(self.deps))

    def on_close(self, stop: Callable[[], None]) -> bool:
        """Run `stop` when the Brain closes, before the driver does; False once it is closing
        (the caller then stops what it started itself)."""
        with self._guard:
            if self.stopping.is_set():
                return False
            self._on_close.append(stop)
            return True

    def __enter__(self) -> Brain:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        with self._guard:
            self.stopping.set()
            stops, self._on_close = self._on_close[::-1], []
        for stop in stops:
            stop()
        deps = self._services.get("deps")
        if isinstance(deps, Deps):
            deps.access.close()
        db = self._services.get("db")
        if isinstance(db, Database):
            db.close()


def interrupt_on_sigterm() -> None:
    """SIGTERM stops the process as Ctrl-C does, so every `finally` runs and the Brain closes
    in order (Python's default for SIGTERM ends the process on the spot). It is handed to
    whatever handles SIGINT at that moment: inside an asyncio loop that is the runner's handler,
    which cancels the main task, so tasks unwind in order; raising KeyboardInterrupt there
    instead lands in whichever task runs and asyncio logs the others' tracebacks. The runner
    only takes SIGINT over from Python's own handler, so a SIGINT ignored (a shell starts a
    background process so) gets that handler back: SIGINT stops the process too. Only the main
    thread may install a handler; elsewhere (a server embedded in a test) this does nothing."""
    if threading.current_thread() is threading.main_thread():
        if not callable(signal.getsignal(signal.SIGINT)):
            signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, _as_sigint)


def _as_sigint(signum: int, frame: FrameType | None) -> None:
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler):
        handler(signal.SIGINT, frame)
    else:  # SIGINT ignored again since
        raise KeyboardInterrupt
