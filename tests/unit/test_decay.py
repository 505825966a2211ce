"""The decay formula and cluster grouping, without a database."""

from __future__ import annotations

import math

from kg_brain.domain.consolidation import build_clusters, cluster_id
from kg_brain.domain.lifecycle import decay_score


def test_a_fresh_unused_note_scores_the_recency_weight() -> None:
    assert math.isclose(decay_score(0, 0, 0), 0.6)


def test_recency_halves_every_thirty_idle_days() -> None:
    assert math.isclose(decay_score(30, 0, 0), 0.3)
    assert math.isclose(decay_score(60, 0, 0), 0.15)


def test_importance_saturates_at_twenty_accesses() -> None:
    assert math.isclose(decay_score(10_000, 20, 0), 0.4, abs_tol=1e-9)
    assert decay_score(10_000, 500, 0) == decay_score(10_000, 20, 0)
    assert decay_score(10_000, 1, 0) < decay_score(10_000, 2, 0) < decay_score(10_000, 20, 0)


def test_inbound_links_slow_decay() -> None:
    assert math.isclose(decay_score(60, 0, 1), decay_score(30, 0, 0))
    assert decay_score(90, 0, 2) > decay_score(90, 0, 1) > decay_score(90, 0, 0)


def test_cluster_id_depends_only_on_the_member_set() -> None:
    assert cluster_id(["ZK-00000002", "ZK-00000001"]) == cluster_id(["ZK-00000001", "ZK-00000002"])
    assert cluster_id(["ZK-00000001", "ZK-00000002"]) != cluster_id(["ZK-00000001", "ZK-00000003"])


def _pair(a: str, b: str, similarity: float, link_type: str | None = None) -> dict[str, object]:
    return {"a": a, "b": b, "a_title": a, "b_title": b, "similarity": similarity,
            "link_type": link_type}


def test_pairs_group_into_connected_clusters_largest_first() -> None:
    clusters = build_clusters([
        _pair("ZK-0000000A", "ZK-0000000B", 0.95),
        _pair("ZK-0000000C", "ZK-0000000D", 0.9, "EXTENDS"),
        _pair("ZK-0000000B", "ZK-0000000E", 0.91),
    ])
    assert [c.zk_ids for c in clusters] == [["ZK-0000000A", "ZK-0000000B", "ZK-0000000E"],
                                           ["ZK-0000000C", "ZK-0000000D"]]
    assert "near-duplicates" in clusters[0].reason
    assert "EXTENDS" in clusters[1].reason
