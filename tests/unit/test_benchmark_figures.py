"""Every figure in docs/BENCHMARKS.md and README.md is the one JSON key it names.

The convention: a `<!-- figures ... -->` comment right below a table or a paragraph (a blank
line between is allowed) names, for each figure above it, the key of `docs/bench/*.json` it
shows, as `file.json:dotted.path` (a list item by its index). Its first line may name a
default file, used by keys that name none:

    <!-- figures locomo-check-add-e97c00a-before.json
    row search_memory, today = methods.search_memory
    col recall@10 = overall.recall@10
    "search_memory 64.2" = methods.search_memory.overall.recall@10
    -->

- Table: `row LABEL = KEY` and `col LABEL = KEY`. A cell's key is the row's and the column's
  joined by a dot, or, when one of them holds `{row}` or `{col}`, that one with the other put
  in its place (`col tune, today = links.json:halves.tune.links.{row}`). Keys separated by
  `, ` are several figures of one cell, in the order the cell shows them (a cell may show
  the first ones only). `cell ROW | COL = KEY` gives one cell its key outright. Labels are
  the cells' text without `**`; a row label of several columns joins them with ` | `
  (`row today | search_memory = ...`); a header that repeats takes its `col` lines in order.
  Every number of a body cell (text in backticks aside) needs a key; a table stating no
  measurement says `<!-- figures: none (why) -->` instead.
- Prose: `"QUOTE" = KEY` (or several keys): QUOTE is text of the paragraph above, and its
  last numbers are the figures of those keys. Change the figure and the quote is not found.

A number matches its key as the doc rounds it (half-up or as Python formats), and a fraction
may be shown as a percentage. Every file named must exist and carry the provenance a current
bench program writes (a commit of this history, a command the current command line or bench
module accepts, settings and tuning with today's names); a result an earlier commit wrote is
named `<name>-<commit>-before.json` after the commit its provenance records (its tuning may
have an earlier set of keys), and the text quoting it says which commit that is.
"""

from __future__ import annotations

import importlib
import json
import re
import shlex
import subprocess
from dataclasses import asdict, dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from kg_brain.cli.commands import build_parser
from kg_brain.search import DeepTuning, Tuning
from kg_brain.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
DOCS = ("docs/BENCHMARKS.md", "README.md")
RESULTS = ROOT / "docs" / "bench"
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
            if not found:
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
        elif figures.is_table:
            problems += table_problems(figures, seen)
        else:
            problems += prose_problems(figures, seen)
    return problems


def provenance_problems(result: dict[str, Any], before: bool = False) -> list[str]:
    record = result.get("provenance")
    if not isinstance(record, dict):
        return ["no provenance: not written by a current bench program"]
    problems = []
    commit = str(record.get("commit") or "")
    known = re.fullmatch(r"[0-9a-f]{40}", commit) and subprocess.run(
        ["git", "merge-base", "--is-ancestor", commit, "HEAD"], cwd=ROOT,
        capture_output=True).returncode == 0
    if not known:
        problems.append(f"commit {commit!r} is not in this checkout's history")
    problems += command_problems(str(record.get("command") or ""))
    stale = set(record.get("settings") or {}) - set(Settings.model_fields)
    if not record.get("settings") or stale:
        problems.append(f"settings missing or renamed since: {sorted(stale)}")
    for key, current in (("tuning", Tuning()), ("deep_tuning", DeepTuning())):
        if not before and key in result and set(result[key]) != set(asdict(current)):
            problems.append(f"{key} keys differ from today's: "
                            f"{sorted(set(result[key]) ^ set(asdict(current)))}")
    return problems


def command_problems(command: str) -> list[str]:
    """The command must name a current program and only options it still has."""
    argv = shlex.split(command)
    if not argv:
        return ["no command recorded"]
    if argv[0] == "kg-brain":
        try:
            build_parser().parse_args(argv[1:])
        except SystemExit:
            return [f"today's kg-brain does not accept {command!r}"]
        return []
    if argv[:2] == ["python", "-m"]:
        module, options = argv[2] if len(argv) > 2 else "", argv[3:]
    else:  # results written before the module was recorded name the program's file
        module, options = f"bench.{argv[0].removesuffix('.py')}", argv[1:]
    try:
        source = Path(importlib.import_module(module).__file__ or "")
    except ImportError:
        return [f"no bench program {module!r} today"]
    if not module.startswith("bench."):
        return [f"{module!r} is not a bench program"]
    text = source.read_text(encoding="utf-8")
    gone = [a for a in options if a.startswith("--") and f'"{a.split("=")[0]}"' not in text]
    return [f"{module} has no option {', '.join(gone)} today"] if gone else []


def name_problems(name: str, result: dict[str, Any]) -> list[str]:
    """A `-before.json` names the commit that wrote it."""
    commit = str((result.get("provenance") or {}).get("commit") or "")[:7]
    if name.endswith("-before.json") and f"-{commit}-before.json" not in name:
        return [f"{name} was written at {commit or 'no commit'}: name it <name>-{commit}-before.json"]
    return []


def named(texts: list[str]) -> list[str]:
    seen: set[str] = set()
    for text in texts:
        doc_problems(text, seen)
    return sorted(seen)


TEXTS = {doc: (ROOT / doc).read_text(encoding="utf-8") for doc in DOCS}
NAMED = named(list(TEXTS.values()))


@pytest.mark.parametrize("doc", DOCS)
def test_every_figure_is_the_key_its_comment_names(doc: str) -> None:
    assert doc_problems(TEXTS[doc]) == []


@pytest.mark.parametrize("name", NAMED)
def test_a_named_result_is_one_a_current_bench_program_writes(name: str) -> None:
    assert (RESULTS / name).is_file(), f"{name} does not exist"
    problems = provenance_problems(result(name), name.endswith("-before.json"))
    assert problems + name_problems(name, result(name)) == []


def test_the_docs_map_their_figures() -> None:
    found = [f for text in TEXTS.values() for f in blocks(text)[0]]
    assert sum(f.is_table and not f.none for f in found) >= 10
    assert sum(len(f.quotes) for f in found) >= 20


def _figure_rows(text: str) -> tuple[list[str], int, int]:
    """Two body rows of the first mapped table whose figures differ, as line numbers."""
    lines = text.splitlines()
    for figures in blocks(text)[0]:
        if not figures.is_table or figures.none or figures.cells:
            continue
        start = lines.index(figures.block[0])
        body = list(range(start + 2, start + len(figures.block)))
        cells = {n: lines[n].strip().strip("|").split("|")[1:] for n in body}
        for a in body:
            for b in body:
                if a < b and numbers(" ".join(cells[a])) != numbers(" ".join(cells[b])):
                    return lines, a, b
    raise AssertionError("no mapped table with two different rows")


def test_a_swapped_row_fails() -> None:
    lines, a, b = _figure_rows(TEXTS[DOCS[0]])
    first, second = (lines[n].strip().strip("|").split("|") for n in (a, b))
    lines[a] = "|" + "|".join(first[:1] + second[1:]) + "|"
    lines[b] = "|" + "|".join(second[:1] + first[1:]) + "|"
    assert doc_problems("\n".join(lines)) != []


def test_a_wrong_prose_figure_fails() -> None:
    text = TEXTS[DOCS[0]]
    figures = next(f for f in blocks(text)[0] if f.quotes)
    quote = figures.quotes[0][0]
    figure = numbers(quote)[-1]
    wrong = quote[: quote.rindex(figure)] + f"{float(figure) + 1.3:.1f}" + \
        quote[quote.rindex(figure) + len(figure):]
    planted = doc_problems(text.replace(quote, wrong, 1))
    assert any(repr(quote) in p for p in planted)
    text = text.replace(f'"{quote}" =', f'"{wrong}" =', 1).replace(quote, wrong, 1)
    assert any(" is not " in p for p in doc_problems(text))


def test_a_figure_without_a_key_or_of_another_key_fails() -> None:
    doc = ("| method | recall@10 | MRR |\n|---|---|---|\n| search_memory | 64.2 | 0.417 |\n"
           "\n<!-- figures locomo-check-add-e97c00a-before.json\n"
           "row search_memory = methods.search_memory\ncol recall@10 = overall.recall@10\n-->\n")
    assert any("0.417 has no key" in p for p in doc_problems(doc))
    assert doc_problems(doc.replace("| MRR |", "| recall@10 |").replace("0.417", "64.2")
                        .replace("|---|---|---|", "|---|---|---|")) != []
    assert doc_problems(doc.replace("0.417", "")) == []
    assert doc_problems(doc.replace("64.2", "63.6").replace("0.417", "")) != []
    assert "table at line 1" in doc_problems(doc.split("\n\n")[0] + "\n")[0]
    assert shown("82.0", 0.82) and shown("82.0", 82.04) and shown("64.2", 64.25)
    assert not shown("82.0", 81.9)


def test_the_checks_fail_on_a_stale_result() -> None:
    """Guards for the test itself: a result from old code, a gone option, a misnamed before."""
    old = {"tuning": {"v_floor": 0.2}, "provenance": {
        "commit": "0" * 40, "command": "kg-brain bench retrieval --no-such-option",
        "settings": {"retired_knob": 0.92}}}
    problems = " ".join(provenance_problems(old))
    for expected in ("commit", "does not accept", "retired_knob", "tuning keys"):
        assert expected in problems
    assert provenance_problems({}) != []
    earlier = " ".join(provenance_problems(old, before=True))
    assert "tuning keys" not in earlier and "commit" in earlier and "retired_knob" in earlier
    assert command_problems("python -m bench.stress --processes 2") == []
    assert command_problems("stress.py --processes 2") == []
    assert "no option --gone" in command_problems("python -m bench.stress --gone 1")[0]
    assert "no bench program" in command_problems("python -m bench.no_such_program")[0]
    assert "not a bench program" in command_problems("python -m json.tool")[0]
    assert name_problems("x-before.json", {"provenance": {"commit": "abcdef0" + "1" * 33}})
    assert name_problems("x-abcdef0-before.json", {"provenance": {"commit": "abcdef0"}}) == []
