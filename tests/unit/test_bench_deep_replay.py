"""The numpy replay of deep_search's last three steps (bench/deep_replay.py)."""

from __future__ import annotations

import numpy as np

from bench.deep_replay import OFF, Hit, Question, bridge, by_clause, near, settings_grid
from bench.ranking import Notes


def _hits(*rows: tuple[str, float, float]) -> list[Hit]:
    return [Hit(z, score, relevance, False) for z, score, relevance in rows]


def _ids(hits: list[Hit]) -> list[str]:
    return [h.id for h in hits]


def test_a_far_hit_at_the_top_yields_to_the_close_ones_below_it() -> None:
    hits = _hits(("far", 3.0, 0.1), ("a", 2.0, 0.6), ("b", 1.9, 0.55), ("c", 1.8, 0.5),
                 ("d", 1.0, 0.45))
    ranked = near(hits, set(), gap=0.2, of=5, head=3)
    assert _ids(ranked) == ["a", "b", "c", "far", "d"]
    assert ranked[2].score > ranked[3].score > ranked[4].score


def test_an_exact_hit_or_the_fix_of_the_closest_keeps_its_place() -> None:
    hits = _hits(("fix", 3.0, 0.1), ("exact", 2.5, 0.05), ("a", 2.0, 0.6), ("b", 1.0, 0.2))
    hits[1].exact = True
    ranked = near(hits, {("fix", "a")}, gap=0.2, of=5, head=3)
    assert _ids(ranked) == ["fix", "exact", "a", "b"]


def test_the_near_step_off_or_nothing_close_leaves_the_order() -> None:
    hits = _hits(("x", 3.0, 0.1), ("y", 2.0, 0.6))
    assert _ids(near(hits, set(), gap=0.2, of=OFF)) == ["x", "y"]
    assert _ids(near(hits, set(), gap=0.2, of=5, head=3)) == ["y", "x"]


def test_the_closest_hit_to_each_clause_takes_a_place_after_the_first() -> None:
    hits = _hits(("top", 3.0, 0.6), ("same", 2.9, 0.59), ("other", 1.0, 0.3), ("far", 0.5, 0.2))
    vectors = np.eye(4)
    ranked = by_clause(hits, vectors, np.eye(4)[[0, 2]], of=3, head=3)
    assert _ids(ranked) == ["top", "other", "same", "far"]
    # beyond the clause step's reach the hit stays where it was
    assert _ids(by_clause(hits, vectors, np.eye(4)[[0, 3]], of=3, head=3)) == _ids(hits)


def test_the_grid_holds_today_and_both_steps_off_once() -> None:
    grid = settings_grid()
    assert sum(s["of"] == OFF and s["clause_of"] == OFF for s in grid) == 1
    assert len({tuple(s.values()) for s in grid}) == len(grid)


def _notes(entities: dict[str, dict[str, int]], kinds: dict[str, str]) -> Notes:
    ids = sorted(entities)
    empty = np.zeros((0, 2), dtype=np.int64)
    return Notes(ids=ids, kinds=np.asarray([kinds.get(z, "general") for z in ids]),
                 created=np.zeros(len(ids)), vectors=np.eye(len(ids)), follows=empty,
                 fixes=empty, fix_weights=np.zeros(0), supersedes=empty, asserted=empty,
                 entities=[entities[z] for z in ids], entity_kinds={}, texts=["" for _ in ids],
                 order=np.arange(len(ids)), stated=np.zeros(len(ids)))


def _question(hits: list[Hit], notes: Notes, excluded: list[str]) -> Question:
    return Question("coding", "p", "multi_note", "original", "", set(), [], hits, [],
                    np.zeros((0, 0)), notes.vectors[notes.ids.index("m")], excluded, 100)


def test_the_note_sharing_the_first_hits_rare_entities_takes_the_third_place() -> None:
    rare = {"host": 2, "var": 2}
    notes = _notes({"a": rare, "m": rare, "n": {"host": 2}, "x": {}, "y": {}, "z": {}},
                   {"m": "general"})
    hits = _hits(("a", 3.0, 0.6), ("x", 2.0, 0.5), ("y", 1.9, 0.5), ("z", 1.0, 0.4))
    q = _question(hits, notes, [])
    ranked = bridge(hits, q, notes, at=3, rarity=2.0, least=1.2)
    assert _ids(ranked) == ["a", "x", "m", "y", "z"]
    assert [h.score for h in ranked] == sorted((h.score for h in ranked), reverse=True)
    # one rare entity in common weighs too little; a kind the search leaves out never comes
    assert _ids(bridge(hits, q, notes, at=3, rarity=2.0, least=2.0)) == _ids(hits)
    assert _ids(bridge(hits, _question(hits, notes, ["general"]), notes, at=3, rarity=2.0,
                       least=1.2)) == _ids(hits)
    assert _ids(bridge(hits, q, notes, at=OFF, rarity=2.0, least=1.2)) == _ids(hits)
