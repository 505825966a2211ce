"""Access stamps, written off the search's path.

A search counts its hits as used (access count + 1, last access = the search's time): being found
is what keeps a note from archiving (kg_brain/domain/lifecycle.py). The searches themselves are
read transactions; each hands its hits here, and one writer per process (a thread started when
stamps wait, ending when none do) writes what has gathered, at most STAMP_INTERVAL_S later, in
one statement per batch (search/stamp_access): a note found n times in a batch gains n, its last
access the latest. `flush` writes what waits now: the lifecycle jobs call it before they read
access, so they see every stamp of their own process, and closing calls it, so a clean close
drops nothing. A batch that fails is logged and tried once more, then dropped with a log line;
a search never sees the failure.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from datetime import datetime

from kg_brain.store import search as statements
from kg_brain.store.db import Database

log = logging.getLogger(__name__)
STAMP_INTERVAL_S = 0.5


class AccessStamps:
    def __init__(self, db: Database, interval_s: float = STAMP_INTERVAL_S) -> None:
        self.db = db
        self.interval_s = interval_s
        self._waiting: dict[str, tuple[int, datetime]] = {}  # zk_id -> uses, latest time
        self._lock = threading.Lock()  # guards _waiting and _writer
        self._writing = threading.Lock()  # one batch at a time, in the order taken
        self._closing = threading.Event()
        self._writer: threading.Thread | None = None

    def add(self, zk_ids: Iterable[str], at: datetime) -> None:
        """Count each note once more as used at `at`; written within STAMP_INTERVAL_S."""
        with self._lock:
            for zk_id in zk_ids:
                uses, last = self._waiting.get(zk_id, (0, at))
                self._waiting[zk_id] = (uses + 1, max(last, at))
            if self._waiting and self._writer is None:
                self._writer = threading.Thread(target=self._run, name="kg-brain-access-stamps",
                                                daemon=True)
                self._writer.start()

    def flush(self) -> None:
        """Write every stamp added so far (and any batch being written) before returning."""
        with self._writing:
            with self._lock:
                batch, self._waiting = self._waiting, {}
            if batch:
                self._write(batch)

    def close(self) -> None:
        """Stop the writer and write what waits; the database closes after."""
        self._closing.set()
        with self._lock:
            writer = self._writer
        if writer is not None:
            writer.join()
        self.flush()

    def _run(self) -> None:
        while True:
            self._closing.wait(self.interval_s)
            self.flush()
            with self._lock:
                if not self._waiting:
                    self._writer = None
                    return

    def _write(self, batch: dict[str, tuple[int, datetime]]) -> None:
        stamps: list[statements.AccessStamp] = [
            {"zk_id": zk_id, "uses": uses, "at": at} for zk_id, (uses, at) in batch.items()]
        for attempt in (1, 2):
            try:
                statements.stamp_access(self.db, stamps=stamps)
                return
            except Exception as exc:  # noqa: BLE001 - a stamp never fails a search
                if attempt == 2:
                    log.error("access stamps of %d notes not written: %s", len(stamps), exc)
                else:
                    log.warning("writing access stamps failed (%s); trying once more", exc)
