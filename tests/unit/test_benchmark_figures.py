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
  in its place (`col check, today = links.json:halves.check.links.{row}`). Keys separated by
  `, ` are several figures of one cell, in the order the cell shows them (a cell may show the
  first ones only). `cell ROW | COL = KEY` gives one cell its key outright; `col LABEL = -`
  marks a column of targets or settings, not figures. Labels are the cells' text without `**`;
  a row label of several columns joins them with ` | ` (`row today | search_memory = ...`);
  a header that repeats takes its `col` lines in order. Every number of a body cell (text in
  backticks aside) needs a key: a table that measures nothing says
  `<!-- figures: none (why) -->` instead, and a table without a comment fails.
- Prose: `"QUOTE" = KEY, KEY...`: QUOTE is text of the paragraph above, and its last numbers
  are the figures of those keys (a metric's name such as recall@10 is no figure). Change the
  figure in the text and the quote is no longer found; change both and the key disagrees.
- A figure worked from others is keys (or numbers) joined by ` + `, ` - ` or ` / `, worked
  from the left: `100 - methods.vector.by_type.symptom_fix.inverted`, `a.p50_ms / b.p50_ms`.

A number matches its key as the doc rounds it (half-up or as Python formats; a worked figure
may be one off in its last decimal), and a fraction may be shown as a percentage. Every file
named must exist and carry the provenance a current bench program writes (a commit of this
history, a command the current command line or bench module accepts, settings and tuning with
today's names); a result an earlier commit wrote is named `<name>-<commit>-before.json` after
the commit its provenance records (its tuning may have an earlier set of keys), and the text
quoting it says which commit that is.
"""

from __future__ import annotations

import importlib
import re
import shlex
import subprocess
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

from kg_brain.base.settings import Settings
from kg_brain.domain.ranking import DeepTuning, Tuning
from kg_brain.surfaces.cli.commands import build_parser
from tests.support.figures import (
    RESULTS,
    Figures,
    blocks,
    doc_problems,
    numbers,
    result,
    shown,
)

ROOT = Path(__file__).resolve().parents[2]
DOCS = ("docs/BENCHMARKS.md", "README.md")


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
    # options a bench module it imports from defines for it (a shared parser)
    text += "".join(Path(importlib.import_module(name).__file__ or "").read_text(encoding="utf-8")
                    for name in re.findall(r"^from (bench\.\w+) import", text, re.MULTILINE))
    gone = [a for a in options if a.startswith("--") and f'"{a.split("=")[0]}"' not in text]
    return [f"{module} has no option {', '.join(gone)} today"] if gone else []


def name_problems(name: str, result: dict[str, Any]) -> list[str]:
    """A `-before.json` names the commit that wrote it."""
    commit = str((result.get("provenance") or {}).get("commit") or "")[:7]
    if name.endswith("-before.json") and f"-{commit}-before.json" not in name:
        return [f"{name} was written at {commit or 'no commit'}: "
                f"name it <name>-{commit}-before.json"]
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


def _swapped(text: str, figures: Figures) -> str | None:
    """The doc with the figures of two rows of the table swapped, their labels kept."""
    lines = text.splitlines()
    start = figures.line - 1
    while lines[start] != figures.block[0]:
        start -= 1
    body = range(start + 2, start + len(figures.block))
    cells = {n: lines[n].strip().strip("|").split("|") for n in body}
    width = max([r.count(" | ") + 1 for r in figures.rows] or [1])
    for a in body:
        for b in body:
            if a < b and numbers(" ".join(cells[a][width:])) != numbers(" ".join(cells[b][width:])):
                lines[a] = "|".join(["", *cells[a][:width], *cells[b][width:], ""])
                lines[b] = "|".join(["", *cells[b][:width], *cells[a][width:], ""])
                return "\n".join(lines)
    return None


MAPPED = [(doc, f) for doc, text in TEXTS.items() for f in blocks(text)[0] if not f.none]
TABLES = [(doc, f) for doc, f in MAPPED if f.is_table and _swapped(TEXTS[doc], f)]
QUOTES = [(doc, f.line, quote) for doc, f in MAPPED for quote, _ in f.quotes[:1]]


@pytest.mark.parametrize(("doc", "figures"), TABLES, ids=lambda x: getattr(x, "line", x))
def test_a_swapped_row_fails(doc: str, figures: Figures) -> None:
    planted = _swapped(TEXTS[doc], figures)
    assert planted is not None
    assert any(f"line {figures.line}, table row" in p
               for p in doc_problems(_alone(planted, figures.line)))


def _alone(text: str, line: int) -> str:
    """The doc with only the figures comment at `line` and what stands between it and the
    comment before it, every other line blank (their numbers kept): a planted figure is found
    there as in the whole doc, without checking every other block again."""
    lines = text.splitlines()
    start = end = line - 1
    while "-->" not in lines[end]:
        end += 1
    while start > 0 and "-->" not in lines[start - 1]:
        start -= 1
    return "\n".join([""] * start + lines[start:end + 1])


def _planted(text: str, line: int, quote: str, wrong: str) -> str:
    """The doc with `quote` made `wrong` in the paragraph above the comment at `line`."""
    lines = text.splitlines()
    start = line - 1
    while start > 0 and not lines[start - 1].strip():
        start -= 1
    end = start
    while start > 0 and lines[start - 1].strip():
        start -= 1
    pattern = r"\s+".join(re.escape(word) for word in quote.split(" "))
    above = re.sub(pattern, wrong, "\n".join(lines[start:end]), count=1)
    return "\n".join([*lines[:start], above, *lines[end:]])


@pytest.mark.parametrize(("doc", "line", "quote"), QUOTES)
def test_a_wrong_prose_figure_fails(doc: str, line: int, quote: str) -> None:
    figure = re.findall(r"\d[\d,]*(?:\.\d+)?", quote)[-1]
    at = quote.rindex(figure)
    wrong = f"{quote[:at]}{float(figure.replace(',', '')) + 1.3:.1f}{quote[at + len(figure):]}"
    planted = _planted(TEXTS[doc], line, quote, wrong)
    assert planted != TEXTS[doc]
    assert any(repr(quote) in p for p in doc_problems(_alone(planted, line)))
    both = planted.replace(f'"{quote}" =', f'"{wrong}" =', 1)
    assert any(f"{wrong!r}: " in p and " is not " in p for p in doc_problems(_alone(both, line)))


def test_a_figure_without_a_key_or_with_another_keys_value_fails() -> None:
    doc = ("| method | recall@10 | MRR |\n|---|---|---|\n| search_memory | 64.2 | 0.417 |\n"
           "\n<!-- figures locomo-check-add-e97c00a-before.json\n"
           "row search_memory = methods.search_memory\ncol recall@10 = overall.recall@10\n-->\n")
    assert any("0.417 has no key" in p for p in doc_problems(doc))
    assert doc_problems(doc.replace("0.417", "")) == []
    assert any(" is not " in p for p in doc_problems(doc.replace("64.2 | 0.417", "63.6 |")))
    assert "no <!-- figures" in doc_problems(doc.split("\n\n")[0] + "\n")[0]
    assert doc_problems(doc.replace("locomo-check-add-e97c00a", "x-e97c00a")) != []
    assert shown("82.0", 0.82) and shown("82.0", 82.04) and shown("64.2", 64.25)
    assert not shown("82.0", 81.9) and not shown("2", 2.6, tolerance=True)
    assert shown("2.5", 2.56, tolerance=True) and not shown("2.5", 2.56)


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
