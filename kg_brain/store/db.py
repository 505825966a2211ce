"""Driver lifecycle, transactions, exception mapping.

Every read runs in a read transaction function and every write in a write transaction function,
so a routed (`neo4j://`) URI spreads reads over followers and sends writes to the leader, and the
driver retries transient errors (deadlocks, leader switches). One bookmark manager per process
gives read-your-writes across the cluster. Statements are run by name only through the typed
store (`kg_brain/store/`); a write transaction collects the ids of the notes its statements
changed (the columns a store function declares) and hands them to `on_changes` before it commits,
so what follows a change (the Obsidian mirror's queue) is recorded by the same transaction.
A transaction's BEGIN travels with its first statement, as the driver's own `execute_query`
sends it: a transaction of n statements costs n + 1 round trips (the statements and the commit),
not n + 2.

Transient faults, two layers. Inside a transaction function the driver retries what it calls
retryable (a defunct connection, a leader switch, deadlocks) for half of NEO4J_TIMEOUT_S; around
it, `read_tx` and `write_tx` try a transaction function again, up to RETRY_ATTEMPTS times with
a doubling pause and a log line, when the driver gave up on such a fault or the query timed out
(a timed-out transaction was rolled back). Write transaction functions are written to be rerun
(they read their inputs when they run), and the statements creating notes of ids chosen before
the transaction find a note already written with the same row instead of failing or writing it
twice; a commit whose outcome is unknown (IncompleteCommit) is never rerun, nor is an
autocommit statement. Long runs (queue drains, benchmark loops) wrap each
unit in `outlast`, which waits out a longer outage (a restarting server), logging, within a
budget.

Closing waits (up to the timeout) for the transactions in flight and refuses new ones, so a job
or a tool call still running when the process stops finishes instead of meeting a closed driver.

The driver (and numpy, which it loads) is imported when a Database is made or an error is
mapped, not with this module: every domain module imports this one, and an MCP server lists its
tools before anything connects.
"""

from __future__ import annotations

import copy
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from kg_brain.base.cypher import line_of, query
from kg_brain.base.errors import Conflict, InvalidInput, StoreUnavailable
from kg_brain.text.redact.gate import Mode as SecretsMode
from kg_brain.text.redact.gate import gate

if TYPE_CHECKING:
    import neo4j
    from neo4j import ManagedTransaction

log = logging.getLogger(__name__)
RETRY_ATTEMPTS = 3
RETRY_FIRST_PAUSE_S = 0.5
OUTAGE_BUDGET_S = 300.0
_TIMED_OUT = ("TimedOut", "Timeout", "LockClientStopped")  # rolled back: safe to run again
T = TypeVar("T")
Row = dict[str, Any]
Mode = Literal["read", "write", "autocommit"]


@dataclass(frozen=True)
class Connection:
    """Where Neo4j is; `local` when kg-brain runs that server itself (`kg-brain neo4j start`),
    not a NEO4J_URI the user set."""

    uri: str
    user: str
    password: str | None
    database: str
    local: bool = False

    def __repr__(self) -> str:  # never print the password
        return f"Connection(uri={self.uri!r}, user={self.user!r}, database={self.database!r})"


class Tx:
    """An open transaction: runs named statements and collects the notes they changed."""

    def __init__(self, tx: ManagedTransaction, db: Database, writable: bool) -> None:
        self._tx = tx
        self._db = db
        self.writable = writable
        self.changed: set[str] = set()
        self.hidden: list[str] = []  # kinds of secrets the gate hid in this transaction's writes
        # notes whose Obsidian mirror job a statement of this transaction armed itself (one
        # round trip fewer than the hook's statement): the mirror's hook leaves them out
        self.mirrored: set[str] = set()

    @property
    def mirrors(self) -> bool:
        """Whether this transaction's changes arm the Obsidian mirror's jobs."""
        return self._db.mirrors

    def run(self, name: str, mode: Mode, params: dict[str, Any],
            changes: tuple[str, ...] = ()) -> list[Row]:
        """`changes`: the columns of a write statement's rows that name the notes it changed."""
        if mode != "read" and not self.writable:
            raise RuntimeError(f"{name} writes; it cannot run in a read transaction")
        if mode == "autocommit":
            raise RuntimeError(f"{name} manages its own transactions; run it on the database")
        self._db.statements_run += 1
        if mode == "write":
            params, found = gate(params, self._db.secrets_mode)
            self.hidden.extend(found)
        rows = [record.data() for record in self._tx.run(query(name, self._db.line), params)]
        for column in changes:
            for row in rows:
                value = row[column]
                if isinstance(value, str):
                    self.changed.add(value)
                elif value:
                    self.changed.update(z for z in value if z)
        return rows


ChangeHook = Callable[[Tx, list[str]], None]


def _begun_with_first_statement(session: neo4j.Session, fn: Callable[[], T]) -> T:
    """`fn` (a transaction function run by the session) with BEGIN sent with the first
    statement instead of on a round trip of its own. The driver (6.x) keeps the switch private
    (its `execute_query` sets it); a driver without it sends BEGIN alone, as before. A BEGIN
    the server refuses fails the first statement, inside the transaction function, where the
    driver's retries see it as they would see the BEGIN fail."""
    switch = getattr(session, "_pipelined_begin", None)
    with switch if switch is not None else nullcontext():
        return fn()


class InFlight:
    """Counts open sessions; once closed, refuses new ones (the process is stopping)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._active = 0
        self._closed = False

    @contextmanager
    def entered(self) -> Iterator[None]:
        with self._cond:
            if self._closed:
                raise StoreUnavailable("database unavailable: kg-brain is stopping")
            self._active += 1
        try:
            yield
        finally:
            with self._cond:
                self._active -= 1
                self._cond.notify_all()

    def close(self, timeout_s: float) -> bool:
        """Refuse new sessions and wait for the open ones; False when some outlived the wait."""
        with self._cond:
            self._closed = True
            return self._cond.wait_for(lambda: self._active == 0, timeout_s)


class Database:
    """Owns the driver; all access goes through the named statements in `cypher/`."""

    def __init__(self, conn: Connection, timeout_s: float = 10.0,
                 secrets_mode: SecretsMode = "redact") -> None:
        self.conn = conn
        self.timeout_s = timeout_s
        self.secrets_mode = secrets_mode  # what the write gate does with a secret
        self.statements_run = 0  # observable for tests that count round trips
        self.on_changes: ChangeHook | None = None
        self.mirrors = False  # on_changes arms the mirror's jobs (kg_brain/views/mirror.py)
        from neo4j import GraphDatabase

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
        self.in_flight = InFlight()  # shared with bound views
        self._line: str | None | Literal["unread"] = "unread"

    @property
    def line(self) -> str | None:
        """The server line whose statements this database runs (kg_brain/base/cypher.py
        LINES; None: the common statements), from the version the server announces
        (`Neo4j/2026.08.1`), asked once."""
        if self._line == "unread":
            with self.in_flight.entered(), mapped_errors(self.conn):
                agent = self.driver.get_server_info().agent
            self._line = line_of(agent.rpartition("/")[2])
        return self._line

    def close(self) -> None:
        if not self.in_flight.close(self.timeout_s):
            log.warning("closing the database with transactions still open")
        self.driver.close()

    def bound(self) -> Database:
        """A view sharing this driver and its bookmarks, with change hooks of its own."""
        view = copy.copy(self)
        view.on_changes = None
        view.mirrors = False
        return view

    @contextmanager
    def _session(self, mapped: bool = True) -> Iterator[neo4j.Session]:
        with self.in_flight.entered(), mapped_errors(self.conn) if mapped else nullcontext(), \
                self.driver.session(database=self.conn.database,
                                    bookmark_manager=self.bookmarks) as session:
            yield session

    def _retried(self, run: Callable[[neo4j.Session], T]) -> T:
        """`run` in a fresh session, again after a transient fault (at most RETRY_ATTEMPTS)."""
        pause = RETRY_FIRST_PAUSE_S
        for attempt in range(1, RETRY_ATTEMPTS + 1):
            try:
                with self._session(mapped=False) as session:
                    return run(session)
            except Exception as exc:
                if attempt == RETRY_ATTEMPTS or not transient(exc):
                    with mapped_errors(self.conn):
                        raise
                log.warning("transient database fault (%s), attempt %d of %d, again in %.1f s",
                            _short(exc), attempt, RETRY_ATTEMPTS, pause)
                time.sleep(pause)
                pause *= 2
        raise AssertionError("unreachable")

    def read_tx(self, fn: Callable[[Tx], T], timeout_s: float | None = None) -> T:
        from neo4j import unit_of_work

        @unit_of_work(timeout=timeout_s or self.timeout_s)
        def work(tx: ManagedTransaction) -> T:
            return fn(Tx(tx, self, writable=False))

        return self._retried(lambda session: _begun_with_first_statement(
            session, lambda: session.execute_read(work)))

    def write_tx(self, fn: Callable[[Tx], T], timeout_s: float | None = None) -> T:
        """`fn` may be retried on transient errors: it must read its inputs when it runs."""
        from neo4j import unit_of_work

        @unit_of_work(timeout=timeout_s or self.timeout_s)
        def work(tx: ManagedTransaction) -> T:
            handle = Tx(tx, self, writable=True)
            result = fn(handle)
            if handle.changed and self.on_changes is not None:
                self.on_changes(handle, sorted(handle.changed))
            return result

        return self._retried(lambda session: _begun_with_first_statement(
            session, lambda: session.execute_write(work)))

    def run(self, name: str, mode: Mode, params: dict[str, Any],
            changes: tuple[str, ...] = ()) -> list[Row]:
        """One statement in a transaction of its own (`autocommit` for statements that manage
        their own transactions: schema commands, CALL ... IN TRANSACTIONS)."""
        if mode == "read":
            return self.read_tx(lambda tx: tx.run(name, mode, params))
        if mode == "write":
            return self.write_tx(lambda tx: tx.run(name, mode, params, changes))
        from neo4j import Query

        self.statements_run += 1
        params, _ = gate(params, self.secrets_mode)
        with self._session() as session:
            result = session.run(Query(query(name, self.line), timeout=None), params)
            return [record.data() for record in result]

    def verify(self) -> None:
        with self.in_flight.entered(), mapped_errors(self.conn):
            self.driver.verify_connectivity()


def transient(exc: Exception) -> bool:
    """A fault worth another try: the connection or the server went away, a transient server
    state, or a timeout (the transaction was rolled back). Not an unknown commit outcome."""
    from neo4j import exceptions as nex

    if isinstance(exc, nex.IncompleteCommit):
        return False
    if isinstance(exc, (nex.ServiceUnavailable, nex.SessionExpired, nex.TransientError, OSError)):
        return True
    code = getattr(exc, "code", None) or ""
    return isinstance(exc, nex.ClientError) and any(mark in code for mark in _TIMED_OUT)


def outlast(call: Callable[[], T], what: str, stopping: threading.Event | None = None,
            budget_s: float = OUTAGE_BUDGET_S) -> T:
    """For one unit of a long run: when the database is unavailable, log, wait (doubling, at
    most 30 s) and call again, until it works or `budget_s` has passed (then raise). A stopping
    process does not wait."""
    deadline = time.monotonic() + budget_s
    pause = 1.0
    while True:
        try:
            return call()
        except StoreUnavailable as exc:
            if time.monotonic() + pause > deadline or (stopping and stopping.is_set()):
                raise
            log.warning("%s: %s; trying again in %.0f s", what, exc, pause)
            if stopping:
                stopping.wait(pause)
            else:
                time.sleep(pause)
            pause = min(pause * 2, 30.0)


@contextmanager
def mapped_errors(conn: Connection) -> Iterator[None]:
    """Driver exceptions become the domain's, each message a full sentence saying what to do
    for the configuration in use; no stack trace reaches an agent."""
    from neo4j import exceptions as nex

    uri = conn.uri
    try:
        yield
    except (nex.ServiceUnavailable, nex.SessionExpired, OSError) as exc:
        remedy = ("Start it with `kg-brain neo4j start`" if conn.local else
                  "NEO4J_URI names it, so kg-brain does not start it: check that this Neo4j "
                  "is running and reachable, or correct NEO4J_URI")
        raise StoreUnavailable(
            f"database unavailable at {uri} ({_short(exc)}). {remedy}, then retry.") from None
    except nex.AuthError:
        raise StoreUnavailable(
            f"database unavailable at {uri}: authentication failed. Check NEO4J_USER and "
            "NEO4J_PASSWORD, then retry.") from None
    except nex.ConstraintError as exc:
        raise Conflict(f"conflicting write: {_short(exc)}. Read the note again and retry."
                       ) from None
    except nex.ClientError as exc:
        if exc.code and "TransactionTimedOut" in exc.code or "Timeout" in (exc.code or ""):
            raise StoreUnavailable(f"database unavailable at {uri}: the query timed out. Retry, "
                                   "or ask for less (a lower top_k or limit).") from None
        if exc.code == "Neo.ClientError.Transaction.LockClientStopped":  # timed out on a lock
            raise StoreUnavailable("database busy: the transaction timed out waiting for a lock. "
                                   "Try again.") from None
        if exc.code and exc.code.startswith("Neo.ClientError.Statement.ArgumentError"):
            raise InvalidInput(f"{_short(exc)}. Correct the argument and retry.") from None
        raise
    except nex.TransientError as exc:
        raise StoreUnavailable(f"database busy ({_short(exc)}). Try again.") from None


def _short(exc: Exception) -> str:
    """The driver's first line, without the dangling colon it may end with."""
    text = getattr(exc, "message", None) or str(exc)
    line = text.splitlines()[0][:300].rstrip(" :.") if text else ""
    return line or type(exc).__name__
