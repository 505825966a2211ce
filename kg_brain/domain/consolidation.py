"""Cluster consolidation: find near-duplicate or strongly linked notes, merge selected clusters.

A cluster is a connected group of candidate pairs (same project, same kind, live, unpinned,
non-contextual permanent notes; cosine similarity >= min_similarity, or a RELATES_TO / SUPPORTS /
EXTENDS / SUPERSEDES link that strong; never two notes that contradict). Its id hashes the sorted
member ids, so a dry run and a later apply name the same cluster the same way, and a cluster that
changed in between no longer matches. Merging never happens without a selection unless
AUTO_CONSOLIDATE is on.
"""

from __future__ import annotations

import hashlib
import logging
from collections import Counter

from pydantic import BaseModel, Field

from kg_brain.base import validate
from kg_brain.base.errors import Conflict, InvalidInput
from kg_brain.base.vocab import CONTEXTUAL_KINDS, LinkType, MemoryType
from kg_brain.domain.deps import Deps
from kg_brain.domain.memory.text import embed_notes, mention_list
from kg_brain.enrichment.llm.entities import extract_entities
from kg_brain.enrichment.llm.types import NoteDraft
from kg_brain.store import entities, notes
from kg_brain.store import lifecycle as statements
from kg_brain.store.db import Tx
from kg_brain.store.lifecycle import ClusterPair
from kg_brain.store.notes import new_zk_id

log = logging.getLogger(__name__)
MERGE_LINK_TYPES = (LinkType.RELATES_TO, LinkType.SUPPORTS, LinkType.EXTENDS, LinkType.SUPERSEDES)
NEIGHBOURS_SCANNED = 100
CLUSTER_MIN_COSINE = 0.76  # (1 + 0.76) / 2 = 0.88, the index score clusters were found at before


class Cluster(BaseModel):
    cluster_id: str = Field(description="stable: the same members give the same id")
    zk_ids: list[str]
    titles: list[str]
    reason: str


class MergedCluster(BaseModel):
    cluster_id: str
    new_zk_id: str = Field(description="the merged permanent note")
    archived: list[str] = Field(description="originals, archived and superseded by new_zk_id")


class ConsolidationReport(BaseModel):
    dry_run: bool
    clusters: list[Cluster]
    merged: list[MergedCluster] = Field(default_factory=list)


def cluster_id(zk_ids: list[str]) -> str:
    return "CL-" + hashlib.sha256("\n".join(sorted(zk_ids)).encode()).hexdigest()[:12].upper()


def build_clusters(pairs: list[ClusterPair]) -> list[Cluster]:
    """Connected components of the pair graph, largest and tightest first."""
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    titles: dict[str, str] = {}
    for p in pairs:
        titles[p["a"]], titles[p["b"]] = p["a_title"] or "", p["b_title"] or ""
        ra, rb = root(p["a"]), root(p["b"])
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    groups: dict[str, list[ClusterPair]] = {}
    for p in pairs:
        groups.setdefault(root(p["a"]), []).append(p)
    clusters = []
    for edges in groups.values():
        ids = sorted({p["a"] for p in edges} | {p["b"] for p in edges})
        clusters.append((len(ids), max(float(p["similarity"]) for p in edges),
                         Cluster(cluster_id=cluster_id(ids), zk_ids=ids,
                                 titles=[titles[i] for i in ids], reason=_reason(edges))))
    clusters.sort(key=lambda c: (-c[0], -c[1], c[2].cluster_id))
    return [c[2] for c in clusters]


def _reason(edges: list[ClusterPair]) -> str:
    vector = [float(p["similarity"]) for p in edges if p["link_type"] is None]
    linked = sorted({p["link_type"] for p in edges if p["link_type"] is not None})
    parts = []
    if vector:
        parts.append(f"near-duplicates (similarity {min(vector):.2f}-{max(vector):.2f})")
    if linked:
        parts.append(f"strongly linked ({', '.join(linked)})")
    return "; ".join(parts)


class Consolidator:
    def __init__(self, deps: Deps) -> None:
        self.deps = deps
        self.db = deps.db
        self.auto_consolidate = deps.settings.auto_consolidate

    def find(self, project: str, min_similarity: float) -> list[Cluster]:
        fetch, rescan = self.deps.index_fetch.for_pairs(project, NEIGHBOURS_SCANNED)
        pairs = statements.cluster_pairs(self.db, project=project,
                                         min_similarity=min_similarity, fetch=fetch, rescan=rescan,
                                         merge_types=[t.value for t in MERGE_LINK_TYPES],
                                         excluded_kinds=[k.value for k in CONTEXTUAL_KINDS])
        return build_clusters(pairs)

    def projects(self) -> list[str]:
        """Projects with permanent notes (the scheduled report walks them)."""
        return [r["project"] for r in statements.list_projects(self.db)]

    def run(self, project: str, dry_run: bool = True, selected: list[str] | None = None,
            min_similarity: float = CLUSTER_MIN_COSINE, max_clusters: int = 20
            ) -> ConsolidationReport:
        """Dry run lists clusters with stable ids; apply merges only the selected ones (all of
        the listed ones without a selection only when AUTO_CONSOLIDATE is on)."""
        project = validate.project(project)
        if not 0.0 <= min_similarity <= 1.0:
            raise InvalidInput("min_similarity is a cosine and must be between 0.0 and 1.0")
        max_clusters = validate.bounded(max_clusters, 1, 200, "max_clusters")
        clusters = self.find(project, min_similarity)
        if dry_run:
            return ConsolidationReport(dry_run=True, clusters=clusters[:max_clusters])
        chosen = self._choose(clusters, selected, max_clusters)
        merged = [self._merge(project, c) for c in chosen]
        return ConsolidationReport(dry_run=False, clusters=chosen, merged=merged)

    def _choose(self, clusters: list[Cluster], selected: list[str] | None,
                max_clusters: int) -> list[Cluster]:
        if selected is None:
            if not self.auto_consolidate:
                raise InvalidInput("consolidation merges only selected clusters: pass "
                                   "selected_cluster_ids from a dry run")
            return clusters[:max_clusters]
        by_id = {c.cluster_id: c for c in clusters}
        unknown = [i for i in selected if i not in by_id]
        if unknown:
            raise InvalidInput(f"no current cluster {', '.join(unknown)} (the notes changed "
                               "since the dry run?); run a dry run again")
        return [by_id[i] for i in dict.fromkeys(selected)]

    def _merge(self, project: str, cluster: Cluster) -> MergedCluster:
        """Synthesis and embedding first, then one transaction: lock and re-check the members,
        create the merged note, move the links, archive the originals with SUPERSEDES."""
        ids = cluster.zk_ids
        self.deps.access.flush()  # the merged note sums the members' access counts
        members = statements.cluster_members(self.db, zk_ids=ids, project=project)
        if len(members) != len(ids):
            raise Conflict(f"cluster {cluster.cluster_id} changed; run a dry run again")
        synthesis = self.deps.enricher.synthesize([
            NoteDraft(title=m["title"] or "", content=m["content"], context=m["context"] or "",
                      note_kind=m["note_kind"]) for m in members])
        now = self.deps.clock()
        new_id = new_zk_id()
        [(vector, parts)] = embed_notes(
            self.deps.embedder, [(synthesis.title, synthesis.content, synthesis.context)])
        row = {
            "zk_id": new_id, "title": synthesis.title, "content": synthesis.content,
            "context": synthesis.context, "keywords": synthesis.keywords,
            "tags": synthesis.tags, "memory_type": MemoryType.PERMANENT.value,
            "note_kind": Counter(m["note_kind"] for m in members).most_common(1)[0][0],
            "pinned": False, "project": project, "created": now, "updated": now,
            "access_count": sum(int(m["access_count"]) for m in members),
            "last_accessed": max((m["last_accessed"] for m in members if m["last_accessed"]),
                                 default=None),
            "embedding": vector, "sentences": parts,
            "entities": mention_list(extract_entities(synthesis.content)),
        }
        reason = f"merged into {new_id} (consolidation {cluster.cluster_id})"

        def work(tx: Tx) -> list[str]:
            locked = statements.lock_cluster(tx, zk_ids=ids, project=project, now=now)
            if len(locked) != len(ids):
                raise Conflict(f"cluster {cluster.cluster_id} changed; run a dry run again")
            notes.insert_notes(tx, [row], now)
            statements.move_links(tx, merged=new_id, originals=ids)
            archived = [r["zk_id"] for r in statements.supersede_notes(
                tx, merged=new_id, originals=ids, now=now, reason=reason)]
            entities.shift_counts(tx, zk_ids=archived, delta=-1)
            return archived

        archived = self.db.write_tx(work)
        log.info("consolidated %s: %d notes into %s", cluster.cluster_id, len(archived), new_id)
        return MergedCluster(cluster_id=cluster.cluster_id, new_zk_id=new_id,
                             archived=sorted(archived))
