"""How many vector index candidates a search asks for, by the project's share of the notes."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from kg_brain.domain.search import Search
from kg_brain.store.share import TEXT_CEILING, WRITE_OWN, IndexFetch


class Counts:
    """Answers notes/project_share from a table of project sizes, counting the reads."""

    def __init__(self, sizes: dict[str, int], line: str | None = None) -> None:
        self.sizes = sizes
        self.line = line  # the server line: "2026" filters on the project in the index
        self.reads = 0

    def run(self, name: str, mode: str, params: dict[str, Any],
            changes: tuple[str, ...] = ()) -> list[dict[str, int]]:
        assert (name, mode) == ("notes/project_share", "read")
        self.reads += 1
        return [{"project_notes": self.sizes.get(params["project"], 0),
                 "all_notes": sum(self.sizes.values())}]


def fetch_for(sizes: dict[str, int], project: str, want: int = 40) -> int:
    return IndexFetch(Counts(sizes), base=100, ceiling=2_000)(project, want)  # type: ignore[arg-type]


def test_a_project_holding_most_notes_keeps_the_base_fetch() -> None:
    assert fetch_for({"a": 10_000}, "a") == 100
    assert fetch_for({"a": 9_000, "b": 1_000}, "a") == 100


def test_a_minority_project_asks_for_candidates_in_inverse_proportion_to_its_share() -> None:
    assert fetch_for({"a": 1_000, "b": 9_000}, "a") == 600  # 40 x 1.5 / 0.1
    assert fetch_for({"a": 5_000, "b": 45_000}, "a", want=10) == 150


def test_a_tiny_or_empty_project_skips_the_index_for_the_exact_scan() -> None:
    assert fetch_for({"a": 20, "b": 99_980}, "a") == 0
    assert fetch_for({"b": 5_000}, "a") == 0
    assert fetch_for({}, "a") == 0


def test_on_the_2026_line_the_index_filters_so_the_share_no_longer_widens_the_fetch() -> None:
    """Every candidate of the filtered index is the project's: want x MARGIN at least the base,
    for a minority project as for one holding most notes; the scan's size rule stays."""
    fetch = IndexFetch(Counts({"a": 5_000, "b": 45_000}, line="2026"), base=100, ceiling=2_000)
    assert fetch("a", 40) == fetch("b", 40) == 100 and fetch("a", 100) == 150
    assert fetch.or_scan("a", 6, 120) == 120 and fetch.for_write("a", 6) == 60  # the floor, 6 x 10
    fetch = IndexFetch(Counts({"a": 20, "b": 99_980}, line="2026"), base=100, ceiling=2_000)
    assert fetch("a", 40) == 100 and fetch.or_scan("a", 6, 120) == 0  # the scan of 20 notes
    assert fetch.for_write("a", 6) == 0
    fetch = IndexFetch(Counts({"a": 221, "b": 29_779}, line="2026"), base=100, ceiling=2_000)
    assert fetch.or_scan("a", 6, 120) == 120  # beyond 120 + 100: the filtered index
    fetch = IndexFetch(Counts({"a": 220, "b": 29_780}, line="2026"), base=100, ceiling=2_000)
    assert fetch.or_scan("a", 6, 120) == 0  # the scan is the cheaper


def test_a_write_scans_a_project_no_larger_than_its_fetch_and_an_index_query() -> None:
    """The index would be asked for more candidates than the project holds notes, or so few
    fewer that its query's own cost (INDEX_QUERY_NOTES) outweighs them."""
    fetch = IndexFetch(Counts({"a": 500, "b": 29_500}), base=100, ceiling=2_000)
    assert fetch("a", 6, 120) == 540 and fetch.or_scan("a", 6, 120) == 0  # 6 x 1.5 / (1/60)
    fetch = IndexFetch(Counts({"a": 1_200, "b": 28_800}), base=100, ceiling=2_000)
    assert fetch("a", 6, 120) == 225 and fetch.or_scan("a", 6, 120) == 0  # within 225 + 1,000
    fetch = IndexFetch(Counts({"a": 2_000, "b": 28_000}), base=100, ceiling=2_000)
    assert fetch.or_scan("a", 6, 120) == fetch("a", 6, 120) == 135
    fetch = IndexFetch(Counts({"a": 10_000, "b": 20_000}), base=100, ceiling=2_000)
    assert fetch.or_scan("a", 6, 120) == 120  # a large project keeps the index
    assert IndexFetch(Counts({"a": 20, "b": 99_980})).or_scan("a", 6, 120) == 0


def test_a_write_takes_the_index_for_a_project_holding_most_of_the_database() -> None:
    """Once the project holds more notes than the fetch, and the fetch brings at least the
    floor / MARGIN of them; a minority project keeps or_scan's choice."""
    fetch = IndexFetch(Counts({"a": 500}), base=100, ceiling=2_000)
    assert fetch.or_scan("a", 12, 60) == 0 and fetch.for_write("a", 6) == 60
    fetch = IndexFetch(Counts({"a": 500, "b": 200}), base=100, ceiling=2_000)
    assert fetch.for_write("a", 6) == 60  # 60 x 5/7 x 1.5 >= 60
    fetch = IndexFetch(Counts({"a": 500, "b": 300}), base=100, ceiling=2_000)
    assert fetch.for_write("a", 6) == 0  # 60 x 0.625 x 1.5 < 60: the scan, as or_scan
    fetch = IndexFetch(Counts({"a": 60}), base=100, ceiling=2_000)
    assert fetch.for_write("a", 6) == 0  # no more notes than the fetch
    fetch = IndexFetch(Counts({"a": 1_200, "b": 28_800}), base=100, ceiling=2_000)
    assert fetch.for_write("a", 6) == 0  # within 300 + 1,000
    fetch = IndexFetch(Counts({"a": 10_000, "b": 20_000}), base=100, ceiling=2_000)
    assert fetch.for_write("a", 6) == fetch.or_scan("a", 12, 60) == 60


def test_a_write_asks_for_its_own_candidates_whatever_the_project_share() -> None:
    """WRITE_OWN x k of the project's notes expected (12 for k 6): fetch x share, above the
    floor of 10 x k; a large project no longer asks for more, a mid-size one no longer fewer."""
    for sizes, expected in [({"a": 15_000, "b": 15_000}, 60), ({"a": 3_000, "b": 27_000}, 120),
                            ({"a": 2_000, "b": 28_000}, 180), ({"a": 2_500, "b": 97_500}, 480)]:
        fetch = IndexFetch(Counts(sizes), base=100, ceiling=2_000)
        assert fetch.for_write("a", 6) == expected
        assert expected * fetch.share("a") >= WRITE_OWN * 6 - 1e-9
    fetch = IndexFetch(Counts({"a": 4_000, "b": 36_000}), base=100, ceiling=2_000)
    assert not fetch.rescans("a") and fetch.for_write("a", 6) == 180  # no scan after: 3 x 6 / 0.1
    fetch = IndexFetch(Counts({"a": 2_500, "b": 97_500}), base=100, ceiling=2_000)
    assert fetch.for_write("a", 5) == 400  # 10 / 0.025
    fetch = IndexFetch(Counts({"a": 5_000, "b": 995_000}), base=100, ceiling=2_000)
    assert fetch.for_write("a", 6) == 0  # 2,400 beyond the ceiling: the scan


def test_the_scan_follows_a_short_index_answer_only_in_a_project_of_bounded_size() -> None:
    """Up to the ceiling and the walk notes (the scan then reads no more notes than the largest
    index query reads candidates and its walk costs); a larger project keeps the index's
    shorter answer, whatever its share."""
    for line, walk in ((None, 1_000), ("2026", 100)):
        fetch = IndexFetch(Counts({"a": 2_000 + walk, "b": 500}, line), base=100, ceiling=2_000)
        assert fetch.rescans("a") and fetch.rescans("b") and fetch.rescans("empty")
        fetch = IndexFetch(Counts({"a": 2_001 + walk, "b": 500}, line), base=100, ceiling=2_000)
        assert not fetch.rescans("a") and fetch.rescans("b")


def test_shares_are_counted_once_per_project_within_the_ttl() -> None:
    counts = Counts({"a": 100, "b": 900})
    fetch = IndexFetch(counts, ttl_s=60.0)  # type: ignore[arg-type]
    assert fetch("a", 40) == fetch("a", 40) == 600
    fetch("b", 40)
    assert counts.reads == 2
    assert IndexFetch(counts, ttl_s=0.0)("a", 40) == 600 and counts.reads == 3


def text_fetch_for(sizes: dict[str, int], project: str) -> int:
    return IndexFetch(Counts(sizes)).text_fetch(project, 250)  # type: ignore[arg-type]


def test_full_text_candidates_are_the_base_when_the_index_keeps_to_the_project() -> None:
    assert text_fetch_for({"kg-brain": 20, "b": 99_980}, "kg-brain") == 250
    assert text_fetch_for({"the-a": 20, "b": 99_980}, "the-a.b") == 250  # "b" is a word


def test_a_name_of_stop_words_widens_full_text_candidates_up_to_their_ceiling() -> None:
    """The analyzer drops a name like `the-it`: the index cannot keep to it."""
    assert text_fetch_for({"it": 10_000}, "it") == 375  # 250 x 1.5
    assert text_fetch_for({"the_it": 1_000, "b": 9_000}, "the_it") == 3_750
    assert text_fetch_for({"a": 20, "b": 99_980}, "a") == TEXT_CEILING  # no scan to fall back on
    assert text_fetch_for({}, "a") == TEXT_CEILING


def search_fetch(sizes: dict[str, int], project: str, want: int = 20) -> int:
    deps = SimpleNamespace(db=None, embedder=None, clock=None, access=None,
                           index_fetch=IndexFetch(Counts(sizes)))  # type: ignore[arg-type]
    return Search(deps)._fetches(project, want, 10)["fetch"]  # type: ignore[arg-type]


def test_a_search_scans_a_project_no_larger_than_its_vector_fetch_and_an_index_query() -> None:
    """search_memory's pool (20) in a project of 700 notes among 30k would ask the index for
    1,286 candidates: the scan reads fewer notes, exactly."""
    assert fetch_for({"a": 700, "b": 29_300}, "a", want=20) == 1_286
    assert search_fetch({"a": 700, "b": 29_300}, "a") == 0
    assert search_fetch({"a": 1_200, "b": 28_800}, "a") == 0  # 750 candidates + 1,000
    assert search_fetch({"a": 1_800, "b": 28_200}, "a") == 500  # more notes than that
    assert search_fetch({"a": 1_800, "b": 28_200}, "a", want=40) == 0  # deep_search: 1,000
    assert search_fetch({"a": 10_000, "b": 20_000}, "a") == 90  # 20 x 1.5 / (1/3)
    assert search_fetch({"a": 20_000, "b": 10_000}, "a") == 60  # most notes: the base


def test_consolidation_asks_the_index_for_its_want_and_scans_a_small_project() -> None:
    """Pairs: the statement scans after a crowded index answer (up to the rescan bound), so the
    share does not widen the fetch; a project within the fetch and the walk notes is scanned."""
    fetch = IndexFetch(Counts({"a": 1_100, "b": 38_900}), base=100, ceiling=2_000)
    assert fetch.for_pairs("a", 100) == (0, True)
    fetch = IndexFetch(Counts({"a": 1_101, "b": 38_899}), base=100, ceiling=2_000)
    assert fetch.for_pairs("a", 100) == (100, True)
    fetch = IndexFetch(Counts({"a": 3_001, "b": 96_999}), base=100, ceiling=2_000)
    assert fetch.for_pairs("a", 100) == (100, False)  # past the rescan bound
    fetch = IndexFetch(Counts({"a": 201, "b": 45_000}, line="2026"), base=100, ceiling=2_000)
    assert fetch.for_pairs("a", 100) == (100, True)  # beyond 100 + 100: the filtered index


def test_a_forgotten_project_is_counted_again_within_the_ttl() -> None:
    counts = Counts({"a": 100, "b": 900})
    fetch = IndexFetch(counts, ttl_s=3_600)  # type: ignore[arg-type]
    assert fetch.size("a") == 100
    counts.sizes["a"] = 400
    assert fetch.size("a") == 100 and counts.reads == 1  # as counted, within the hour
    fetch.forget("a")
    assert fetch.size("a") == 400 and counts.reads == 2
    assert fetch.share("a") == 400 / 1_300 and counts.reads == 2
