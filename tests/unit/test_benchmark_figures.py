"""Every table in docs/BENCHMARKS.md that names a result JSON shows what today's code makes of it.

A table's JSON files are those its section heading names (`### Scale (scale.json)`) and every
`docs/bench/<path>.json` named in the text between the previous table or heading and the table
(code blocks aside: their commands write results, they do not name a table's).
Each must exist, carry the provenance a current bench program writes (a commit of this history,
a command the current command line or bench module accepts, settings and tuning with today's
names; a `<name>-before.json` is an earlier commit's run kept beside today's for a comparison,
so its tuning may have an earlier set of keys), and every number in the table's cells (the first
column is a label) must be a number of those files, as the table rounds it (a fraction may be
shown as a percentage), or a number of the tables `kg-brain bench report` renders from them.
"""

from __future__ import annotations

import importlib
import json
import re
import shlex
import subprocess
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pytest

from bench import report
from kg_brain.cli.commands import build_parser
from kg_brain.search import DeepTuning, Tuning
from kg_brain.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "BENCHMARKS.md"
RESULTS = ROOT / "docs" / "bench"
_NAMED = re.compile(r"docs/bench/([\w./-]+\.json)")
_HEADING_JSON = re.compile(r"\(([\w.-]+\.json)[;)]")
_NUMBER = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?")
_QUOTED = re.compile(r"`[^`]*`")


@dataclass(frozen=True)
class Table:
    line: int
    rows: list[str]
    results: tuple[str, ...]


def tables(text: str) -> list[Table]:
    """The doc's tables, each with the result files its heading and caption name."""
    found, caption, heading, fenced = [], [], "", False
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            fenced = not fenced  # commands in a code block reproduce results, they name none
        elif fenced:
            pass
        elif line.startswith("#"):
            heading, caption = line, []
        elif line.startswith("|"):
            start = i
            while i < len(lines) and lines[i].startswith("|"):
                i += 1
            named = _HEADING_JSON.findall(heading) + _NAMED.findall("\n".join(caption))
            found.append(Table(start + 1, lines[start:i], tuple(dict.fromkeys(named))))
            caption = []
            continue
        else:
            caption.append(line)
        i += 1
    return found


def numbers(text: str) -> list[str]:
    return [n.replace(",", "") for n in _NUMBER.findall(_QUOTED.sub("", text))]


def cell_numbers(table: Table) -> list[str]:
    """Numbers of the body rows, label column and quoted text left out."""
    cells = [c for row in table.rows[2:] for c in row.strip().strip("|").split("|")[1:]]
    return [n for c in cells for n in numbers(c)]


def leaves(value: Any) -> list[float]:
    if isinstance(value, bool):
        return []
    if isinstance(value, (int, float)):
        return [float(value)]
    if isinstance(value, dict):
        return [x for v in value.values() for x in leaves(v)]
    if isinstance(value, list):
        return [x for v in value for x in leaves(v)]
    return []


def rendered(path: Path, result: dict[str, Any]) -> set[str]:
    """The numbers of the tables the current report renders from this result, if it can."""
    if "sizes" in result:
        text = report.scale_tables(result)
    elif result.get("suite") == "coding":
        text = report.coding_tables(result)
    elif "methods" in result:
        text = report.retrieval_tables(result)
    elif result.get("benchmark") == "projects":
        text = report.projects_table(result)
    else:
        return set()
    return set(numbers(text))


def shown(number: str, values: list[float], rendered_numbers: set[str]) -> bool:
    if number in rendered_numbers:
        return True
    places = len(number.partition(".")[2])
    return any(f"{x:.{places}f}" == number or f"{100 * x:.{places}f}" == number for x in values)


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


TABLES = [t for t in tables(DOC.read_text(encoding="utf-8")) if t.results]


def test_the_doc_has_tables_that_name_their_results() -> None:
    assert TABLES


@pytest.mark.parametrize("table", TABLES, ids=lambda t: f"line{t.line}")
def test_a_table_shows_what_todays_code_makes_of_its_results(table: Table) -> None:
    values: list[float] = []
    from_report: set[str] = set()
    for name in table.results:
        path = RESULTS / name
        assert path.is_file(), f"BENCHMARKS.md line {table.line}: {name} does not exist"
        result = json.loads(path.read_text(encoding="utf-8"))
        before = name.endswith("-before.json")
        assert provenance_problems(result, before) == [], f"line {table.line}: {name}"
        values += leaves(result)
        from_report |= rendered(path, result)
    missing = [n for n in cell_numbers(table) if not shown(n, values, from_report)]
    assert missing == [], (f"BENCHMARKS.md line {table.line}: figures in no number of "
                           f"{', '.join(table.results)}")


def test_the_checks_fail_on_a_stale_result() -> None:
    """Guards for the test itself: a result from old code, a gone option, a number not there."""
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
    table = tables("### Retrieval (x.json)\n\n```\nrun --out docs/bench/y.json\n```\n\n"
                   "| method | hit@1 |\n|---|---|\n| vector | 82.0 |\n")
    assert table[0].results == ("x.json",)
    assert cell_numbers(table[0]) == ["82.0"]
    assert shown("82.0", [0.82], set()) and shown("82.0", [82.04], set())
    assert not shown("82.0", [81.9], set())
