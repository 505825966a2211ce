"""The `graph` migration: a graph written by the previous version gets the shape the writer gives
new notes now.

The previous version wrote notes without entities, left `note_kind` at `general` when the caller
did, wrote links without an `origin` and let similarity links pile up on popular notes. For every
note in scope (one project or all), read page by page in zk_id order, the plan works out:

1. mentions: the entities the offline extractor reads from the note's content, where they differ
   from its MENTIONS (an archived note's mentions do not count towards an entity's live notes);
2. kinds: a `general` note's kind read from its text, as the writer would store it;
3. origins: a link without one is `explicit` when the system asserted it (weight 1.0: a fix's
   FIXES, a handoff's PART_OF, a merge's SUPERSEDES), else `auto`;
4. types: every automatic link re-decided by the enricher's `decide_links` with the current
   rules, reading "source TYPE target" with the link's weight as the similarity; a link whose
   type changes keeps its ends, created and weight (a fix -> mistake RELATES_TO becomes FIXES, a
   false CONTRADICTS between a fix and its decision goes back to RELATES_TO). A typed link the
   rules no longer support at all falls back to RELATES_TO; the migration never drops a link
   except by the degree bound;
5. degree: each note keeps at most LINK_TOP_K automatic RELATES_TO links, the strongest (the
   writer's own prune statement, simulated in the plan).

Notes written before client sessions were recorded name none, and the session order joins only
the notes one client session wrote: no step adds FOLLOWS to them (a time window would chain two
windows' or a subagent's notes together), and the FOLLOWS an earlier version wrote stay.

A dry run only reads and counts. Applying writes a backup of every affected note and its links
first (`backups/graph-pre-migration-<stamp>.json`; `kg-brain import` restores it exactly, re-typed
links included), then steps 1-4 in one transaction per page and step 5 in a second pass, so a
similarity link that just became a FIXES is never pruned as a RELATES_TO. Every step
compares with what is stored, so a second run finds nothing to change.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from kg_brain.base.vocab import JUDGED_LINK_TYPES, LinkType, NoteKind
from kg_brain.domain.deps import Deps
from kg_brain.domain.memory.text import mention_list, stored_kind
from kg_brain.enrichment.llm.entities import extract_entities
from kg_brain.enrichment.llm.kinds import infer_kind
from kg_brain.enrichment.llm.types import Candidate, EntityRef, NoteDraft
from kg_brain.store import links, upgrade, views
from kg_brain.store.db import Tx
from kg_brain.store.entities import replace_mentions
from kg_brain.store.upgrade import GraphNote
from kg_brain.views.schema import write_backup

PAGE = 200
LINK_TYPES = [t.value for t in JUDGED_LINK_TYPES]  # the session order is not re-judged
RELATES = LinkType.RELATES_TO.value
GENERAL = NoteKind.GENERAL.value


@dataclass
class Page:
    """What one page of notes needs, as rows for the statements that apply it."""

    zk_ids: list[str]
    mentions: list[dict[str, Any]] = field(default_factory=list)
    kinds: list[dict[str, Any]] = field(default_factory=list)
    origins: list[dict[str, str]] = field(default_factory=list)
    retypes: list[dict[str, str]] = field(default_factory=list)

    def touched(self) -> set[str]:
        """Notes whose properties, mentions or outgoing links this page changes."""
        return ({r["zk_id"] for r in self.mentions + self.kinds}
                | {r["src"] for r in self.origins + self.retypes})


@dataclass
class GraphReport:
    applied: bool
    notes: int = 0
    mentions: int = 0  # notes whose MENTIONS change
    entities: int = 0  # distinct entity keys those notes mention
    kinds: Counter[str] = field(default_factory=Counter)  # inferred kind -> notes
    origins: Counter[str] = field(default_factory=Counter)  # origin -> links given it
    retypes: Counter[str] = field(default_factory=Counter)  # "OLD -> NEW" -> links
    pruned: int = 0  # automatic RELATES_TO beyond LINK_TOP_K (dropped, or to drop)
    backup: Path | None = None

    @property
    def changes(self) -> int:
        return (self.mentions + self.kinds.total() + self.origins.total()
                + self.retypes.total() + self.pruned)


class _Planner:
    """Reads the scope page by page and works out each step."""

    def __init__(self, deps: Deps, project: str | None) -> None:
        self.deps = deps
        self.project = project
        self.keep = deps.settings.link_top_k
        self.report = GraphReport(applied=False)
        self._read: dict[str, tuple[list[EntityRef], str | None]] = {}  # zk_id -> entities, kind
        # automatic RELATES_TO after step 4, one per pair and direction (re-typing never doubles)
        self._similar: dict[tuple[str, str], float] = {}
        self.order: list[str] = []
        self.entity_keys: set[str] = set()

    def pages(self) -> Iterator[Page]:
        after = ""
        while True:
            rows = upgrade.graph_notes(self.deps.db, after=after, project=self.project,
                                       link_types=LINK_TYPES, limit=PAGE)
            if rows:
                yield self._page(rows)
            if len(rows) < PAGE:
                return
            after = rows[-1]["zk_id"]

    def _page(self, rows: list[GraphNote]) -> Page:
        page = Page([r["zk_id"] for r in rows])
        for row in rows:
            self.order.append(row["zk_id"])
            kind = self._note(page, row)
            self._links(page, row, kind)
        self.report.notes += len(rows)
        return page

    def _note(self, page: Page, row: GraphNote) -> str | None:
        """Steps 1 and 2 for one note; returns the kind it will have."""
        refs, kind = self.read(row["zk_id"], row["note_kind"], row["content"])
        if sorted({ref.key for ref in refs}) != sorted(row["mentions"]):
            page.mentions.append({"zk_id": row["zk_id"], "entities": mention_list(refs)})
            self.entity_keys.update(ref.key for ref in refs)
        if kind != row["note_kind"]:
            page.kinds.append({"zk_id": row["zk_id"], "fields": {"note_kind": kind},
                               "old_memory_type": row["memory_type"],
                               "old_note_kind": row["note_kind"]})
            self.report.kinds[kind] += 1
        return kind

    def _links(self, page: Page, row: GraphNote, kind: str | None) -> None:
        """Steps 3 and 4 for one note's outgoing links; its similarity links are kept for 5."""
        auto = []
        for link in row["links"]:
            origin = link["origin"] or _origin(link)
            if link["origin"] is None:
                page.origins.append({"src": row["zk_id"], "dst": link["dst"],
                                     "type": link["type"], "origin": origin})
                self.report.origins[origin] += 1
            if origin == "auto":
                auto.append(link)
        verdicts = self._decide(row, kind, auto) if auto else {}
        for link in auto:
            new, reason = verdicts.get(link["dst"], (RELATES, f"similar ({_weight(link):.2f})"))
            if new != link["type"]:
                page.retypes.append({"src": row["zk_id"], "dst": link["dst"],
                                     "old": link["type"], "new": new, "reason": reason})
                self.report.retypes[f"{link['type']} -> {new}"] += 1
            if new == RELATES:
                self._similar.setdefault((row["zk_id"], link["dst"]), _weight(link))

    def _decide(self, row: GraphNote, kind: str | None,
                auto: list[dict[str, Any]]) -> dict[str, tuple[str, str]]:
        """The enricher's verdict for each automatic link's target, as a new note would get it."""
        draft = NoteDraft(title=row["title"] or "", content=row["content"] or "",
                          note_kind=kind or GENERAL, entities=_keys(self._read[row["zk_id"]][0]))
        candidates = []
        for link in auto:
            refs, other = self.read(link["dst"], link["note_kind"], link["content"])
            candidates.append(Candidate(zk_id=link["dst"], title=link["title"] or "",
                                        content=link["content"] or "",
                                        note_kind=other or GENERAL,
                                        similarity=_weight(link), entities=_keys(refs)))
        decisions = self.deps.enricher.decide_links(draft, candidates)
        return {d.zk_id: (LinkType(d.link_type).value, d.reason[:500]) for d in decisions}

    def read(self, zk_id: str, note_kind: str | None,
             content: str | None) -> tuple[list[EntityRef], str | None]:
        """A note's entities and the kind it will have, worked out once whichever end of a
        link it is met at."""
        if zk_id not in self._read:
            text = content or ""
            self._read[zk_id] = (extract_entities(text), _kind(note_kind, text))
        return self._read[zk_id]

    def pruned(self) -> list[tuple[str, str]]:
        """The automatic RELATES_TO links the degree bound drops (source, target), visiting notes
        in the order the apply does, in prune_similarity_links' order (weight, other end)."""
        if self.keep == 0:
            return []
        ends: dict[str, dict[tuple[str, str], tuple[float, str]]] = {}
        for (src, dst), weight in self._similar.items():
            ends.setdefault(src, {})[(src, dst)] = (weight, dst)
            ends.setdefault(dst, {})[(src, dst)] = (weight, src)
        dropped = []
        for zk_id in self.order:
            mine = sorted(ends.get(zk_id, {}).items(), key=lambda kv: (-kv[1][0], kv[1][1]))
            for pair, _ in mine[self.keep:]:
                del ends[pair[0]][pair], ends[pair[1]][pair]
                dropped.append(pair)
        return dropped


def _kind(note_kind: str | None, content: str) -> str | None:
    """A `general` note's kind as the writer stores it now; any other kind (even a missing or
    unknown one: the schema migrations' business) stays."""
    if note_kind != GENERAL:
        return note_kind
    return stored_kind(NoteKind.GENERAL, infer_kind(content, NoteKind.GENERAL)).value


def _keys(refs: list[EntityRef]) -> list[str]:
    return [ref.key for ref in refs]


def _weight(link: dict[str, Any]) -> float:
    return float(link["weight"] or 0.0)


def _origin(link: dict[str, Any]) -> str:
    """Who made a link written before links said so: the system asserted its links at 1.0."""
    weight = link["weight"]
    return "explicit" if weight is None or float(weight) >= 1.0 else "auto"


def upgrade_graph(deps: Deps, now: datetime, apply: bool = False, project: str | None = None,
                  backup_dir: Path = Path("backups")) -> GraphReport:
    """Plan (and with `apply`, back up then carry out) the graph migration for a scope."""
    planner = _Planner(deps, project)
    pages = list(planner.pages())
    report = planner.report
    report.mentions = sum(len(p.mentions) for p in pages)
    report.entities = len(planner.entity_keys)
    pruned = planner.pruned()
    report.pruned = len(pruned)
    if not apply or not report.changes:
        return report
    touched = set().union(*(p.touched() for p in pages)) | {src for src, _ in pruned}
    report.backup = write_backup(deps.db, "graph", sorted(touched), now, backup_dir,
                                 exact_links=True)
    report.applied = True
    for page in pages:
        deps.db.write_tx(lambda tx, p=page: _apply_page(tx, p, now))
    if planner.keep:
        report.pruned = sum(deps.db.write_tx(lambda tx, p=page: _prune(tx, p, planner.keep))
                            for page in pages)
    return report


def _apply_page(tx: Tx, page: Page, now: datetime) -> None:
    """Steps 1-4 of one page, in one transaction (origins first: only automatic links are
    re-typed)."""
    if page.mentions:
        replace_mentions(tx, rows=page.mentions, now=now)
    if page.kinds:
        views.migrate_note_fields(tx, rows=page.kinds)
    if page.origins:
        upgrade.set_link_origins(tx, rows=page.origins)
    if page.retypes:
        upgrade.retype_links(tx, rows=page.retypes)


def _prune(tx: Tx, page: Page, keep: int) -> int:
    return sum(r["dropped"] for r in links.prune_similarity_links(tx, zk_ids=page.zk_ids,
                                                                  keep=keep))
