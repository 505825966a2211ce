"""The typed store ties every statement file to exactly one function that names it in its
decorator: same name and area, the same parameters as the file's `$params`, and a row type with
the keys the header declares."""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from pathlib import Path
from typing import get_type_hints

import pytest

from kg_brain.base.cypher import all_query_names
from kg_brain.domain.ranking import DeepTuning
from kg_brain.store.mistakes import Task
from kg_brain.store.search import DeepQuestion, Question
from kg_brain.store.statement import On, read
from tests.support.statements import (
    body,
    bound_statements,
    declared_returns,
    parameters,
    row_keys,
    store_module,
)

ROOT = Path(__file__).resolve().parents[2]
FILES = [name for name in all_query_names() if not name.startswith("browser/")]


def test_every_statement_file_has_exactly_one_store_function() -> None:
    assert sorted(bound_statements()) == sorted(FILES)


def test_each_file_is_run_by_the_function_named_after_it_in_its_area() -> None:
    bound = {}
    for name in bound_statements():
        area = name.split("/")[0]
        module = importlib.import_module(store_module(area))
        for fn_name, fn in inspect.getmembers(module, inspect.isfunction):
            if getattr(fn, "statement", None) is not None and fn.__module__ == module.__name__:
                bound[fn.statement.name] = f"{area}/{fn_name}"
    assert bound == {name: name for name in FILES}


def test_a_decorator_naming_a_missing_file_or_a_fragment_fails_at_import() -> None:
    for file in ("notes/no_such_statement.cypher", "notes/get_notes",
                 "fragments/nearest_in_project.cypher"):
        with pytest.raises(ValueError):
            @read(file)
            def nowhere(on: On) -> None:
                """Never bound."""


def test_a_file_is_bound_to_one_function_only() -> None:
    bound_statements()
    with pytest.raises(RuntimeError, match="bound twice"):
        @read("admin/server_version.cypher")
        def again(on: On) -> None:
            """A second function for a bound file."""


@pytest.mark.parametrize("name", FILES)
def test_a_store_function_takes_exactly_its_statements_parameters(name: str) -> None:
    assert set(bound_statements()[name].params) == parameters(name)


@pytest.mark.parametrize("name", FILES)
def test_a_store_row_has_the_keys_its_file_declares(name: str) -> None:
    assert row_keys(bound_statements()[name]) == declared_returns(name)


def test_deep_search_gets_every_constant_its_statement_reads_in_one_map() -> None:
    """A key missing from the map would read as null in Cypher, silently: the two must agree."""
    read = set(re.findall(r"\$tuning\.(\w+)", body("search/deep_search")))
    assert read == set(DeepTuning().statement_map())
    assert len(read) > 10


@pytest.mark.parametrize(("name", "question"), [("search/search_memory", Question),
                                                ("search/deep_search", DeepQuestion),
                                                ("mistakes/preflight_mistakes", Task)])
def test_a_statement_reads_its_question_map_whole(name: str, question: type) -> None:
    """The parts of a question travel in one map (one plan whatever the question); a key
    missing from it would read as null in Cypher, silently."""
    assert set(re.findall(r"\$question\.(\w+)", body(name))) == set(get_type_hints(question))


def test_changed_columns_are_columns_of_the_row() -> None:
    for name, spec in bound_statements().items():
        assert set(spec.changes) <= set(row_keys(spec)), name
        assert not spec.changes or spec.mode == "write", name


def test_only_the_store_runs_statements_by_name() -> None:
    """Outside the store modules and db.py no code, the benchmarks' included, passes a
    statement name to run()."""
    offenders = []
    for path in [*(ROOT / "kg_brain").rglob("*.py"), *(ROOT / "bench").rglob("*.py")]:
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("kg_brain/store/") and not rel.startswith("kg_brain/store/localdb/") \
                or rel in ("kg_brain/store/db.py", "bench/store.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("run", "read", "write") and node.args
                    and isinstance(node.args[0], ast.Constant)
                    and isinstance(node.args[0].value, str) and "/" in node.args[0].value):
                offenders.append(f"{rel}:{node.lineno}")
    assert offenders == []
