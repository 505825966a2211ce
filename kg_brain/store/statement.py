"""Typed statements: each function of a store module names the Cypher file it runs.

    @read("notes/nearest_notes.cypher")
    def nearest_notes(on: On, *, vector: Vector, project: str, k: int) -> list[NearestNote]:
        '''Nearest live notes of a project.'''

runs `cypher/notes/nearest_notes.cypher` with exactly its keyword arguments as parameters, in a
read transaction of its own when called with the Database, or inside the caller's transaction
when called with a `Tx`. The return annotation says what comes back: `list[Row]` every row,
`Row | None` the first row if any, `Row` exactly one row, `None` nothing. Rows are TypedDicts
whose keys are the statement's RETURN columns (a test EXPLAINs every file and compares).
`@write(file, "zk_id")` names the columns that hold the ids of the notes a write changed; its
transaction records them before it commits (kg_brain/store/db.py).
"""

from __future__ import annotations

import functools
import inspect
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar, Union, get_args, get_origin, get_type_hints

from kg_brain.base.cypher import statement_name
from kg_brain.store.db import Database, Mode, Row, Tx

P = ParamSpec("P")
R = TypeVar("R")
On = Database | Tx


@dataclass(frozen=True)
class Statement:
    """What a store function runs: the file, the mode, the row shape and how many rows."""

    name: str
    mode: Mode
    row: type | None
    shape: str  # rows | optional | one | none
    params: tuple[str, ...]
    changes: tuple[str, ...] = ()


STATEMENTS: dict[str, Statement] = {}


def read(file: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """`file`: the statement, relative to `cypher/` (`notes/get_notes.cypher`)."""
    return lambda fn: _bind(fn, file, "read", ())


def write(file: str, *changes: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """`changes`: the row columns naming the notes the statement changed (ids or id lists)."""
    return lambda fn: _bind(fn, file, "write", changes)


def autocommit(file: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Schema commands and CALL ... IN TRANSACTIONS: run on the Database, never in a Tx."""
    return lambda fn: _bind(fn, file, "autocommit", ())


def _bind(fn: Callable[P, R], file: str, mode: Mode, changes: tuple[str, ...]) -> Callable[P, R]:
    spec = Statement(statement_name(file), mode, *_shape(fn), _params(fn), changes)
    if spec.name in STATEMENTS:
        raise RuntimeError(f"{spec.name} is bound twice")
    STATEMENTS[spec.name] = spec

    @functools.wraps(fn)
    def run(on: On, **params: Any) -> Any:
        return _shaped(spec, on.run(spec.name, mode, params, changes))

    run.statement = spec  # type: ignore[attr-defined]
    return run  # type: ignore[return-value]


def _shape(fn: Callable[..., Any]) -> tuple[type | None, str]:
    returned = get_type_hints(fn, include_extras=False)["return"]
    if returned is type(None):
        return None, "none"
    if get_origin(returned) is list:
        return get_args(returned)[0], "rows"
    if get_origin(returned) in (Union, types.UnionType):
        row = next(a for a in get_args(returned) if a is not type(None))
        return row, "optional"
    return returned, "one"


def _params(fn: Callable[..., Any]) -> tuple[str, ...]:
    names = list(inspect.signature(fn).parameters.values())
    if not names or names[0].name != "on":
        raise TypeError(f"{fn.__qualname__}: the first parameter must be `on`")
    if any(p.kind is not inspect.Parameter.KEYWORD_ONLY for p in names[1:]):
        raise TypeError(f"{fn.__qualname__}: statement parameters must be keyword-only")
    return tuple(p.name for p in names[1:])


def _shaped(spec: Statement, rows: list[Row]) -> Any:
    if spec.shape == "rows":
        return rows
    if spec.shape == "optional":
        return rows[0] if rows else None
    if spec.shape == "one":
        if len(rows) != 1:
            raise RuntimeError(f"{spec.name} returned {len(rows)} rows, expected one")
        return rows[0]
    return None
