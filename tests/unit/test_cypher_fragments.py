"""Shared Cypher blocks have one source: fragments rendered into statements when they load."""

from __future__ import annotations

import re

import pytest

from kg_brain.base.cypher import (
    FRAGMENTS,
    LINES,
    all_query_names,
    cypher_root,
    line_of,
    query,
    render,
)

INDEX_CALL = "db.index.vector.queryNodes"
EXACT_SCAN = "vector.similarity.cosine"


def raw(name: str) -> str:
    return (cypher_root() / f"{name}.cypher").read_text(encoding="utf-8")


def test_no_statement_spells_out_the_index_then_scan_idiom() -> None:
    """The vector index with an exact-scan fallback is written once, in the fragment."""
    spelled = [n for n in all_query_names() if INDEX_CALL in raw(n) and EXACT_SCAN in raw(n)]
    assert spelled == []
    users = [n for n in all_query_names() if "{{> nearest_in_project" in raw(n)]
    assert {"search/search_memory", "search/deep_search", "notes/nearest_notes",
            "bench/vector_notes"} <= set(users)
    assert raw("search/deep_search").count("{{> nearest_in_project") == 2


def test_every_fragment_is_used_and_every_statement_renders_completely() -> None:
    files = [p.name.removesuffix(".cypher").split(".") for p in
             (cypher_root() / FRAGMENTS).glob("*.cypher")]
    fragments = {parts[0] for parts in files}
    used = {m for n in all_query_names() for m in re.findall(r"\{\{>\s*([a-z_]+)", raw(n))}
    assert used == fragments
    assert {parts[1] for parts in files if len(parts) > 1} <= set(LINES)  # no stray line
    assert all(len(parts) == 1 or [parts[0]] in files for parts in files)  # beside a common one
    for name in all_query_names():
        for line in (None, *LINES):
            text = query(name, line)
            assert "{{>" not in text and not re.search(r"\{\{[a-z_]+\}\}", text), name


def test_a_line_renders_its_own_fragment_in_its_language_and_the_rest_as_is() -> None:
    """The 2026 line's nearest-notes statements search the index filtered on the project (the
    SEARCH clause, Cypher 25); a statement without a fragment of that line is the same text."""
    common, line = query("notes/nearest_notes"), query("notes/nearest_notes", "2026")
    assert INDEX_CALL in common and "SEARCH" not in common
    assert line.startswith("CYPHER 25\n") and INDEX_CALL not in line
    assert "SEARCH n IN (VECTOR INDEX vector_index_Note_embedding FOR $vector" in line
    assert "WHERE n.project = $project LIMIT $fetch)" in line
    assert query("notes/get_notes", "2026") == query("notes/get_notes")
    with pytest.raises(ValueError, match="no server line"):
        query("notes/get_notes", "2031")


@pytest.mark.parametrize(("version", "line"), [
    ("5.26.0", None), ("5.26.12", None), ("2025.10.1", None), ("2026.01.0", "2026"),
    ("2026.08.1", "2026"), ("2027.02.0", "2026"),
])
def test_the_line_follows_the_servers_version(version: str, line: str | None) -> None:
    assert line_of(version) == line


def test_a_rendered_block_takes_the_statements_words_and_indent() -> None:
    text = render("CALL (x) {\n  {{> nearest_in_project\n      as: got\n      imports: q\n"
                  "      vector: q\n      size: $pool\n      where: n.a = 1\n"
                  "        AND n.b = 2 }}\n  RETURN got\n}", "test/inline")
    assert "  CALL (q) {\n    CALL (q) {\n" in text
    assert "WHERE n.project = $project AND n.a = 1 AND n.b = 2\n" in text
    assert "AND n.a = 1 AND n.b = 2 AND NOT (false) AND n.embedding IS NOT NULL" in text
    assert "} END AS got\n  }\n  RETURN got" in text
    assert "//" not in text  # the fragment's comments stay in the fragment


@pytest.mark.parametrize(("block", "error"), [
    ("{{> nearest_in_project\n as: v\n vector: $v\n size: $k }}", "needs where"),
    ("{{> nearest_in_project\n colour: red\n as: v }}", "'colour: red', not a slot"),
    ("{{> no_such_fragment\n as: v }}", "no fragment 'no_such_fragment'"),
])
def test_a_bad_include_fails_at_load_naming_the_statement(block: str, error: str) -> None:
    with pytest.raises(ValueError, match=re.escape(error)) as caught:
        render(block, "test/bad")
    assert "test/bad" in str(caught.value) or "no fragment" in error


def test_fragments_are_not_statements() -> None:
    assert not any(n.startswith(f"{FRAGMENTS}/") for n in all_query_names())
    with pytest.raises(ValueError):
        query(f"{FRAGMENTS}/nearest_in_project")
