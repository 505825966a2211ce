"""How many vector index candidates to ask for, given a project's share of the database.

Neo4j 5.26's vector index cannot filter: a query returns the nearest notes of every project and
the statement keeps the project's. A project holding a share s of the notes gets about s x fetch
of them, so asking for `want / s` candidates (with a margin) keeps the index path for any
project large enough to matter. Below a share of want x MARGIN / ceiling the project is small,
and the statements' exact scan of the project (their fallback when the index leaves them short)
is cheaper than a huge index query: the fetch is 0, the statements skip the index and the scan
answers alone (a base-sized index query would rarely find enough of the project's notes, and the
scan would follow it anyway). A search's vector channel (`or_scan`) takes the scan also for a
project no larger than its fetch and the notes the scan reads in the time the index walks its
graph: reading each note costs about what reading an index candidate does (measured beside each
other in a database of many projects), so the scan is the cheaper, and exact, of the two. A
write's nearest notes (`for_write`) do the same, except for a project holding most of the
database, which takes the index once it holds more notes than the fetch; a write sizes its fetch by
the project's own candidates it needs (WRITE_OWN x k, no margin beyond) above a floor
(WRITE_FLOOR x k). Consolidation's pairs (`for_pairs`) ask for their want unwidened: the
statement tells a crowded answer by its farthest candidate and scans the project after it.
On Neo4j's 2026 line the index filters on the project itself (fragments/nearest_in_project.2026):
every candidate is the project's, the fetch is `want` with the margin whatever the share, and the
scan answers a project no larger than the fetch and the notes it reads in the time a filtered
query takes (FILTERED_INDEX_QUERY_NOTES, fewer than the unfiltered walk's).
When the index comes short of the notes a statement asks for, its exact scan of the project
answers instead only for a project it reads in bounded time (`rescans`: at most the ceiling and
the walk notes); a larger project keeps the index's shorter answer.
Shares are counted once per project per `ttl_s` seconds in each process.
"""

from __future__ import annotations

import math
import re
import threading
import time

from kg_brain.store import notes
from kg_brain.store.db import Database

MARGIN = 1.5
# Notes the exact scan reads in the time an index query takes before its candidates count:
# walking the graph costs about one raw vector query. Measured beside each other in a database
# of 38.5k notes over many projects (load ~9 on 2 cores), a scan cost ~0.03 ms a note, an index
# query ~0.024 ms a candidate plus ~75 ms (a raw query's 71 ms): ~2,500 notes; taken lower.
INDEX_QUERY_NOTES = 1_000
# The same on Neo4j's 2026 line, where the index filters on the project: python -m
# bench.vector_filter (docs/bench/vector-filter-10k.json and -fine.json: one private 2026.08.1
# server, ~10k notes in projects of 50 to 5,000, load 3-9 on 2 cores) timed search_memory's
# filtered query of 60 candidates at 1.2-1.3 raw vector queries whatever the project's size, and
# the exact scan as costly near 170-190 notes (the fetch and 110-130 more); taken lower.
FILTERED_INDEX_QUERY_NOTES = 100
# A write's k nearest notes: the index asked for candidates expected to hold WRITE_OWN x k of the
# project's notes, and WRITE_FLOOR x k at least (the index's own approximation: its quantized
# scores and graph walk miss a near note more often the fewer candidates it is asked for, whatever
# the share). docs/bench/tune/fetch41-replay.json (private 5.26 at 10k and 30k notes in
# bench.scale's layout, 150 new notes a project, k 6, against the exact scan's top 6 ids and
# cosines): at a share of 0.5, fetch 60 answered the scan's for every note at both sizes, 40 and
# 36 missed 1 to 2; at shares of 0.026 to 0.1, 12 own candidates expected answered the scan's for
# every note and left the index short of k (the scan then answers after it) for at most 4 in 150,
# 9 expected missed 1 to 2 at some shares and left it short for 12 to 22 in 150; 18 cost more
# time than the few scans it spared. A project too large for the scan to follow a short answer
# (IndexFetch.rescans) keeps it: WRITE_OWN_ALONE x k there, 18 expected for k 6 (20 at 10k) left
# the index short of k for none of 1,050 notes replayed at shares of 0.026 to 0.1.
WRITE_OWN = 2
WRITE_OWN_ALONE = 3
WRITE_FLOOR = 10
TEXT_CEILING = 5_000  # full-text candidates at most (a Lucene top-n: cheap beside the vectors)
# Lucene's English stop words: the note index's analyzer drops them, from a project name too
STOP_WORDS = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such that the their "
    "then there these they this to was will with".split())
_NAME_PARTS = re.compile(r"[-._]+")


class IndexFetch:
    def __init__(self, db: Database, base: int = 100, ceiling: int = 2_000,
                 ttl_s: float = 60.0) -> None:
        self.db = db
        self.base = base
        self.ceiling = ceiling
        self.ttl_s = ttl_s
        self._shares: dict[str, tuple[float, float, int]] = {}
        self._lock = threading.Lock()

    def __call__(self, project: str, want: int, base: int | None = None) -> int:
        """Index candidates for a query that needs `want` of `project`'s notes; 0: the project
        is small, an exact scan of it answers without the index."""
        floor = max(base or self.base, want)
        share = self.reach(project)
        need = math.ceil(want * MARGIN / share) if share > 0 else math.inf
        return max(floor, int(need)) if need <= self.ceiling else 0

    def or_scan(self, project: str, want: int, base: int | None = None) -> int:
        """As a call, or 0 (the exact scan) when the project holds no more notes than the index
        would be asked for plus INDEX_QUERY_NOTES: the index reads about as many candidates as
        the scan reads notes, walks its graph besides, and answers approximately where the scan
        is exact."""
        return self._or_scan(project, self(project, want, base))

    def _or_scan(self, project: str, fetch: int) -> int:
        """`fetch`, or 0 (the exact scan) for a project no larger than it and the walk."""
        return 0 if self.size(project) <= fetch + self.walk() else fetch

    def rescans(self, project: str) -> bool:
        """Whether the statements' exact scan follows an index answer that came short of the
        notes asked for (the project's notes passed the statement's conditions more rarely than
        the fetch assumed, or the index found few of them): for a project of at most `ceiling`
        and the walk notes, so the scan reads no more notes than the largest index query reads
        candidates and its walk costs; a larger project keeps the index's shorter answer."""
        return self.size(project) <= self.ceiling + self.walk()

    def walk(self) -> int:
        """The notes the exact scan reads in the time the index walks its graph, on the
        server's line."""
        return INDEX_QUERY_NOTES if self.db.line is None else FILTERED_INDEX_QUERY_NOTES

    def for_write(self, project: str, k: int) -> int:
        """A write's k nearest notes: candidates enough to hold WRITE_OWN x k of the project's
        notes (fetch x reach; WRITE_OWN_ALONE x k where no scan follows a short answer), at
        least WRITE_FLOOR x k, up to the ceiling; as `or_scan`, the scan answers a project no
        larger than the fetch and the walk, except that a project holding most of the database
        takes the index as soon as it holds more notes than the fetch. The index then returns
        at least the floor / MARGIN of the project's notes; so asked, it answered the scan's
        nearest notes and scores for every add replayed, in less time than the scan, which
        reads every note's embedding."""
        floor, reach = WRITE_FLOOR * k, self.reach(project)
        own = WRITE_OWN if self.rescans(project) else WRITE_OWN_ALONE
        need = math.ceil(own * k / reach) if reach > 0 else math.inf
        fetch = max(floor, int(need)) if need <= self.ceiling else 0
        if fetch and fetch * reach * MARGIN >= floor and self.size(project) > fetch:
            return fetch
        return self._or_scan(project, fetch)

    def for_pairs(self, project: str, want: int) -> tuple[int, bool]:
        """Consolidation's neighbours of each note: `want` index candidates of every project,
        unwidened by the share, or 0 (the exact scan) for a project no larger than them and the
        walk notes; and whether the exact scan follows an index answer that may have left near
        notes out (`rescans`). The statement knows when it may have: the farthest candidate
        still passes the similarity threshold, so the pairs missed are exactly those of notes
        crowded by more than `want` near notes, which the scan then answers; elsewhere the
        narrow fetch is as exact as a wide one and cheaper. A project beyond the rescan bound
        keeps the index's answer for its crowded notes."""
        return self._or_scan(project, max(self.base, want)), self.rescans(project)

    def text_fetch(self, project: str, base: int) -> int:
        """Full-text candidates: the index keeps to the project (its name is a required phrase
        of the query, kg_brain/domain/query_text.py in_project), so `base` is enough. A name of
        stop words only leaves the index nothing to match it on: `base` widened by the
        project's share like the vector fetch, up to TEXT_CEILING; a small project gets the
        ceiling too, since the full-text channel has no exact scan to fall back on (other
        projects' matches would fill a short list)."""
        if not all(part in STOP_WORDS for part in _NAME_PARTS.split(project.lower()) if part):
            return base
        share = self.share(project)
        need = math.ceil(base * MARGIN / share) if share > 0 else TEXT_CEILING
        return max(base, min(need, TEXT_CEILING))

    def share(self, project: str) -> float:
        return self._counted(project)[1]

    def reach(self, project: str) -> float:
        """The part of the index's candidates that are the project's: its share, or 1 where
        the index filters on the project (every server line of its own: 2026)."""
        return 1.0 if self.db.line is not None else self.share(project)

    def size(self, project: str) -> int:
        """The project's notes, as last counted."""
        return self._counted(project)[2]

    def forget(self, project: str) -> None:
        """Count the project again at its next use (a caller that has just written much of it:
        a search reads the project's size, and a count up to `ttl_s` old would size its reads
        by the project as it was)."""
        with self._lock:
            self._shares.pop(project, None)

    def _counted(self, project: str) -> tuple[float, float, int]:
        now = time.monotonic()
        with self._lock:
            cached = self._shares.get(project)
        if cached and now - cached[0] < self.ttl_s:
            return cached
        row = notes.project_share(self.db, project=project)
        share = row["project_notes"] / row["all_notes"] if row["all_notes"] else 0.0
        counted = (now, share, int(row["project_notes"]))
        with self._lock:
            self._shares[project] = counted
        return counted
