"""Driver lifecycle, read/write helpers over named Cypher files, exception mapping, schema.

Every read runs in a read transaction function and every write in a write transaction function,
so a routed (`neo4j://`) URI spreads reads over followers and sends writes to the leader, and the
driver retries transient errors (deadlocks, leader switches). One bookmark manager per process
gives read-your-writes across the cluster.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

import neo4j
from neo4j import GraphDatabase, ManagedTransaction, Query, unit_of_work
from neo4j import exceptions as nex

from kg_brain.cypher import query
from kg_brain.errors import Conflict, InvalidInput, StoreUnavailable

log = logging.getLogger(__name__)
T = TypeVar("T")
SCHEMA_STATEMENTS = (
    "schema/create_fulltext_index", "schema/create_job_index", "schema/create_job_state_index",
    "schema/create_lease_constraint", "schema/create_revision_index",
)
Row = dict[str, Any]


@dataclass(frozen=True)
class Connection:
    uri: str
    user: str
    password: str | None
    database: str

    def __repr__(self) -> str:  # never print the password
        return f"Connection(uri={self.uri!r}, user={self.user!r}, database={self.database!r})"


class Tx:
    """A transaction handle that runs named statements; used inside read_tx/write_tx."""

    def __init__(self, tx: ManagedTransaction, db: Database) -> None:
        self._tx = tx
        self._db = db

    def run(self, name: str, **params: Any) -> list[Row]:
        self._db.statements_run += 1
        result = self._tx.run(query(name), params)
        return [record.data() for record in result]


class Database:
    """Owns the driver; all access goes through named statements in `cypher/`."""

    def __init__(self, conn: Connection, timeout_s: float = 10.0) -> None:
        self.conn = conn
        self.timeout_s = timeout_s
        self.statements_run = 0  # observable for tests that count round trips
        auth = (conn.user, conn.password) if conn.password is not None else None
        self.driver = GraphDatabase.driver(
            conn.uri,
            auth=auth,
            connection_timeout=timeout_s,
            connection_acquisition_timeout=timeout_s,
            # Retries back off 1 s, 2 s, 4 s...: half the budget keeps a failing call near
            # NEO4J_TIMEOUT_S in an outage while still riding out deadlocks and leader switches.
            max_transaction_retry_time=timeout_s / 2,
            notifications_min_severity="OFF",
        )
        self.bookmarks = GraphDatabase.bookmark_manager()

    def close(self) -> None:
        self.driver.close()

    @contextmanager
    def _session(self) -> Iterator[neo4j.Session]:
        with _mapped_errors(), self.driver.session(
            database=self.conn.database, bookmark_manager=self.bookmarks
        ) as session:
            yield session

    def _unit(self, fn: Callable[[Tx], T], timeout_s: float | None) -> Callable[..., T]:
        @unit_of_work(timeout=timeout_s or self.timeout_s)
        def work(tx: ManagedTransaction) -> T:
            return fn(Tx(tx, self))

        return work

    def read_tx(self, fn: Callable[[Tx], T], timeout_s: float | None = None) -> T:
        with self._session() as session:
            return session.execute_read(self._unit(fn, timeout_s))

    def write_tx(self, fn: Callable[[Tx], T], timeout_s: float | None = None) -> T:
        with self._session() as session:
            return session.execute_write(self._unit(fn, timeout_s))

    def read(self, name: str, **params: Any) -> list[Row]:
        return self.read_tx(lambda tx: tx.run(name, **params))

    def write(self, name: str, **params: Any) -> list[Row]:
        return self.write_tx(lambda tx: tx.run(name, **params))

    def run_autocommit(self, name: str, **params: Any) -> list[Row]:
        """For statements that manage their own transactions (CALL ... IN TRANSACTIONS)."""
        self.statements_run += 1
        with self._session() as session:
            result = session.run(Query(query(name), timeout=None), params)
            return [record.data() for record in result]

    def verify(self) -> None:
        with _mapped_errors():
            self.driver.verify_connectivity()

    def server_version(self) -> str:
        rows = self.read("admin/server_version")
        return str(rows[0]["version"]) if rows else "unknown"

    def bootstrap_schema(self) -> None:
        """Idempotent: neomodel installs the node model's constraints and indexes, the rest
        (multi-property full-text, relationship and job indexes) comes from `cypher/schema/`."""
        from neomodel import db as neomodel_db

        from kg_brain.store.model import SCHEMA_INDEXES, SCHEMA_MODELS

        present = {row["name"] for row in self.read("admin/list_indexes")}
        if SCHEMA_INDEXES <= present:
            return  # schema commands take exclusive locks: skip them when nothing is missing
        with _mapped_errors():
            neomodel_db.set_connection(driver=self.driver)
            sink = io.StringIO()  # neomodel reports "already exists" here; stdout is MCP's
            for model in SCHEMA_MODELS:
                neomodel_db.install_labels(model, quiet=True, stdout=sink)
            for name in SCHEMA_STATEMENTS:
                self.run_autocommit(name)
            self.run_autocommit("schema/await_indexes")
        log.debug("schema bootstrap done")


@contextmanager
def _mapped_errors() -> Iterator[None]:
    """Driver exceptions become the domain's; no stack trace reaches an agent."""
    try:
        yield
    except (nex.ServiceUnavailable, nex.SessionExpired, OSError) as exc:
        raise StoreUnavailable(f"database unavailable: {_short(exc)}") from None
    except nex.AuthError:
        raise StoreUnavailable("database unavailable: authentication failed") from None
    except nex.ConstraintError as exc:
        raise Conflict(f"conflicting write: {_short(exc)}") from None
    except nex.ClientError as exc:
        if exc.code and "TransactionTimedOut" in exc.code or "Timeout" in (exc.code or ""):
            raise StoreUnavailable("database unavailable: query timed out") from None
        if exc.code == "Neo.ClientError.Transaction.LockClientStopped":  # timed out on a lock
            raise StoreUnavailable("database busy, try again: transaction timed out") from None
        if exc.code and exc.code.startswith("Neo.ClientError.Statement.ArgumentError"):
            raise InvalidInput(_short(exc)) from None
        raise
    except nex.TransientError as exc:
        raise StoreUnavailable(f"database busy, try again: {_short(exc)}") from None


def _short(exc: Exception) -> str:
    text = getattr(exc, "message", None) or str(exc)
    return text.splitlines()[0][:300] if text else type(exc).__name__
