"""Reading the `<!-- figures -->` comments of a doc and checking each figure against its key.

The convention is described at the top of tests/unit/test_benchmark_figures.py.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from functools import cache
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parents[2] / "docs" / "bench"
_NUMBER = re.compile(r"(?<![\w.@])-?\d[\d,]*(?:\.\d+)?")
_QUOTED = re.compile(r"`[^`]*`")
_PROSE = re.compile(r'^"(.+)"\s+=\s+(.+)$')
_OPS = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "/": lambda a, b: a / b}


@dataclass
class Figures:
    """One `<!-- figures -->` comment and the table or paragraph above it."""

    line: int
    block: list[str]
    default: str = ""
    none: bool = False
    rows: dict[str, list[str]] = field(default_factory=dict)
    cols: dict[str, list[str]] = field(default_factory=dict)
    cells: dict[tuple[str, str], str] = field(default_factory=dict)
    quotes: list[tuple[str, str]] = field(default_factory=list)

    @property
    def is_table(self) -> bool:
        return bool(self.block) and self.block[0].startswith("|")


def numbers(text: str) -> list[str]:
    return [n.replace(",", "") for n in _NUMBER.findall(_QUOTED.sub("", text))]


def label(text: str) -> str:
    return text.replace("**", "").strip()


def blocks(text: str) -> tuple[list[Figures], list[tuple[int, list[str]]]]:
    """The doc's figures comments, each with its block, and the tables no comment follows."""
    found: list[Figures] = []
    tables: dict[int, list[str]] = {}
    block: list[str] = []
    last: list[str] = []
    lines, i, start, fenced = text.splitlines(), 0, 0, False
    while i < len(lines):
        line = lines[i]
        if block and (not line.strip() or line.startswith(("```", "<!--"))
                      or line.startswith("|") != block[0].startswith("|")):
            if block[0].startswith("|"):
                tables[start] = block
            block, last = [], block
        if line.startswith("```"):
            fenced, last = not fenced, []
        elif fenced or not line.strip():
            pass
        elif line.startswith("<!-- figures"):
            begin = i
            while "-->" not in lines[i]:
                i += 1
            found.append(parse(lines[begin:i + 1], begin + 1, last))
            last = []
        elif line.startswith("<!--"):
            last = []
        else:
            start = start if block else i + 1
            block.append(line)
        i += 1
    if block and block[0].startswith("|"):
        tables[start] = block
    mapped = {id(f.block) for f in found}
    return found, [(n, b) for n, b in tables.items() if id(b) not in mapped]


def parse(comment: list[str], line: int, block: list[str]) -> Figures:
    head = comment[0].removeprefix("<!-- figures").removesuffix("-->").strip()
    figures = Figures(line, block)
    if head.startswith(":"):
        figures.none = head.removeprefix(":").strip().startswith("none")
        return figures
    figures.default = head
    for raw in comment[1:]:
        entry = raw.removesuffix("-->").strip()
        if not entry:
            continue
        prose = _PROSE.match(entry)
        if prose:
            figures.quotes.append((prose[1], prose[2].strip()))
            continue
        kind, _, rest = entry.partition(" ")
        name, _, value = rest.rpartition(" = ")
        if kind == "row":
            figures.rows.setdefault(label(name), []).append(value.strip())
        elif kind == "col":
            figures.cols.setdefault(label(name), []).append(value.strip())
        elif kind == "cell":
            row, _, col = name.rpartition(" | ")
            figures.cells[(label(row), label(col))] = value.strip()
        else:
            raise ValueError(f"figures comment at line {line}: cannot read {entry!r}")
    return figures


@cache
def result(name: str) -> Any:
    return json.loads((RESULTS / name).read_text(encoding="utf-8"))


def lookup(key: str, default: str, seen: set[str]) -> tuple[str, Any]:
    """The value a key names, or a problem saying why there is none."""
    name, _, path = key.rpartition(".json:")
    name = f"{name}.json" if name else default
    seen.add(name)
    return _value(name, path)


@cache
def _value(name: str, path: str) -> tuple[str, Any]:
    """The number at `path` in the result `name`, or a problem (the files do not change while
    the checks run, and every mutation test reads them again)."""
    if not (RESULTS / name).is_file():
        return f"{name} does not exist", None
    value = result(name)
    for part in (path.split(".") if path else []):
        if isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        elif isinstance(value, dict) and part in value:
            value = value[part]
        else:
            return f"{name} has no key {path}", None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"{name}:{path} is not a number ({value!r})", None
    return "", value


def shown(number: str, value: float, tolerance: bool = False) -> bool:
    """Whether `number` is `value` (or 100 times it) rounded as the doc writes it; a decimal
    derived from two keys may be off by one in its last place (worked from rounded figures)."""
    places = len(number.partition(".")[2])
    step = Decimal(1).scaleb(-places)
    slack = step if tolerance and places else 0
    for x in (value, 100 * value):
        exact = Decimal(repr(float(x))).quantize(step, ROUND_HALF_UP)
        if f"{x:.{places}f}" == number or abs(exact - Decimal(number)) <= slack:
            return True
    return False


def split(value: str) -> list[str]:
    return [v.strip() for v in value.split(", ")]


def cell_keys(row: str, col: str) -> list[str]:
    if "{row}" in col:
        return [t.replace("{row}", r) for t in split(col) for r in split(row)]
    if "{col}" in row:
        return [t.replace("{col}", c) for t in split(row) for c in split(col)]
    return [f"{r}.{c}" for r in split(row) for c in split(col)]


def compare(where: str, shown_numbers: list[str], keys: list[str], default: str,
            seen: set[str]) -> list[str]:
    if len(shown_numbers) > len(keys):
        return [f"{where}: {len(shown_numbers)} figures, {len(keys)} keys"]
    problems = []
    for number, key in zip(shown_numbers, keys, strict=False):
        problem, value = derived(key, default, seen)
        if problem:
            problems.append(f"{where}: {problem}")
        elif not shown(number, value, tolerance=bool(re.search(r" [-+/] ", key))):
            problems.append(f"{where}: {number} is not {key} ({value})")
    return problems


def derived(key: str, default: str, seen: set[str]) -> tuple[str, Any]:
    """A key, or keys and numbers joined by ` + `, ` - ` or ` / `, worked from the left."""
    parts = re.split(r" ([-+/]) ", key)
    total: Any = None
    for op, operand in zip(["+", *parts[1::2]], parts[::2], strict=True):
        problem, value = (("", float(operand)) if _NUMBER.fullmatch(operand.strip())
                          else lookup(operand.strip(), default, seen))
        if problem:
            return problem, None
        total = value if total is None else _OPS[op](total, value)
    return "", total


def table_problems(figures: Figures, seen: set[str]) -> list[str]:
    rows = [[c.strip() for c in r.strip().strip("|").split("|")] for r in figures.block]
    width = max([n.count(" | ") + 1 for n in figures.rows] or [1])
    header = [label(c) for c in rows[0][width:]]
    times: dict[str, int] = {}
    col_keys = []
    for name in header:
        times[name] = times.get(name, -1) + 1
        values = figures.cols.get(name, [])
        col_keys.append(values[times[name]] if times[name] < len(values) else None)
    problems, used_rows = [], set()
    for n, cells in enumerate(rows[2:], start=3):
        row = " | ".join(label(c) for c in cells[:width])
        for name, key, cell in zip(header, col_keys, cells[width:], strict=False):
            found = numbers(cell)
            if not found or key == "-":
                continue
            where = f"line {figures.line}, table row {n} {row!r}, column {name!r}"
            if (row, name) in figures.cells:
                keys = split(figures.cells[(row, name)])
            elif row in figures.rows and key is not None:
                used_rows.add(row)
                keys = cell_keys(figures.rows[row][0], key)
            else:
                problems.append(f"{where}: {' '.join(found)} has no key")
                continue
            problems += compare(where, found, keys, figures.default, seen)
    unknown = [*(set(figures.rows) - used_rows - {r for r, _ in figures.cells}),
               *(c for c in figures.cols if c not in header)]
    return problems + [f"line {figures.line}: no such row or column {u!r}" for u in unknown]


def prose_problems(figures: Figures, seen: set[str]) -> list[str]:
    text = " ".join(line.strip() for line in figures.block)
    problems = []
    for quote, keys in figures.quotes:
        where = f"line {figures.line}, {quote!r}"
        if quote not in text:
            problems.append(f"{where}: not in the paragraph above")
            continue
        wanted = split(keys)
        problems += compare(where, numbers(quote)[-len(wanted):], wanted, figures.default, seen)
    return problems


def doc_problems(text: str, seen: set[str] | None = None) -> list[str]:
    """Every figure of a doc that is not the value of the key its comment names; `seen`
    gathers the result files the keys name."""
    seen = set() if seen is None else seen
    found, bare = blocks(text)
    problems = [f"table at line {n} has figures and no <!-- figures --> comment"
                for n, b in bare if any(numbers(c) for r in b[2:]
                                        for c in r.strip().strip("|").split("|")[1:])]
    for figures in found:
        if figures.none:
            continue
        if not figures.block:
            problems.append(f"line {figures.line}: figures comment under nothing")
        else:
            problems += table_problems(figures, seen) if figures.is_table else []
            problems += prose_problems(figures, seen)
    return problems
