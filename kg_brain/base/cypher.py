"""Loads the Cypher statements shipped in `cypher/`: one statement per file, addressed by name.

`notes/create_note` names `cypher/notes/create_note.cypher`. In a wheel the folder is shipped as
`kg_brain/cypher`; in a source checkout it is the repository's top-level `cypher/`.

A block written once and used by several statements lives in `cypher/fragments/<name>.cypher`
with `{{slot}}` placeholders; a statement includes it with

    {{> name
        slot: text
        other: text that may continue
          on the next lines }}

and the loader renders it in place (indented to the block, the fragment's comments left out);
a fragment may include another the same way. A slot a statement leaves out takes its default
where it has one (_OPTIONAL): `project`, the project the fragment keeps to, is `$project` unless
the statement reads it elsewhere (the searches' `$question.project`); `sentences` is null.
Only repository text is ever rendered, never input: statements are named by code constants.

A server line with statements of its own (LINES: Neo4j's 2026 line, whose vector index filters
inside the index) keeps its version of a fragment beside the common one, as
`fragments/<name>.<line>.cypher`. A statement rendered for that line takes the line's fragments
where they exist, and one that took any runs in the line's Cypher language (a prefix of the
statement); the others are the same text on every line. The database picks its line once, from
the server's version (`line_of`).
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

_NAME = re.compile(r"^[a-z_]+(/[a-z0-9_]+)+$")
FRAGMENTS = "fragments"
_INCLUDE = re.compile(r"^(?P<indent>[ \t]*)\{\{>[ \t]*(?P<name>[a-z_]+)(?P<args>.*?)\}\}[ \t]*$",
                      re.S | re.M)
_SLOT = re.compile(r"\{\{([a-z_]+)\}\}")
_OPTIONAL = {"imports": "", "except": "false", "project": "$project", "sentences": "null"}
# The lines with statements of their own and the Cypher language those statements are written in
# (the SEARCH clause, Neo4j 2026's vector search filtered in the index, is Cypher 25 only).
LINES = {"2026": "CYPHER 25"}


def line_of(version: str) -> str | None:
    """The line whose statements a server of `version` runs: "2026" from 2026.01 on (calendar
    versions), None (the common statements) for 5.x."""
    major = version.split(".", 1)[0]
    return "2026" if major.isdigit() and int(major) >= 2026 else None


def cypher_root() -> Path:
    packaged = Path(__file__).resolve().parents[1] / "cypher"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / "cypher"


@cache
def query(name: str, line: str | None = None) -> str:
    """Return the text of one statement, fragments rendered, for the server `line` (None: the
    common statements); names are code constants, never caller input."""
    _check(name)
    if line is not None and line not in LINES:
        raise ValueError(f"no server line {line!r}")
    text = (cypher_root() / f"{name}.cypher").read_text(encoding="utf-8")
    rendered = render(text, name, line)
    if line is not None and rendered != render(text, name):
        return f"{LINES[line]}\n{rendered}"
    return rendered


def statement_name(file: str) -> str:
    """`notes/create_notes` for the file `notes/create_notes.cypher`, if that file exists."""
    name = file.removesuffix(".cypher")
    _check(name)
    if name == file or not (cypher_root() / file).is_file():
        raise ValueError(f"no statement file {file!r} in {cypher_root()}")
    return name


def _check(name: str) -> None:
    if not _NAME.match(name) or name.startswith(f"{FRAGMENTS}/"):
        raise ValueError(f"bad query name {name!r}")


def render(text: str, statement: str, line: str | None = None) -> str:
    """`text` with every fragment it includes rendered in place, the `line`'s own version of a
    fragment where it has one; ValueError names `statement` and what is wrong (an unknown
    fragment or slot, a slot left empty)."""
    return _INCLUDE.sub(lambda m: _include(statement, m, line), text)


def _include(statement: str, include: re.Match[str], line: str | None) -> str:
    fragment = include["name"]
    template = fragment_text(fragment, line)
    slots = set(_SLOT.findall(template))
    args = {**{k: v for k, v in _OPTIONAL.items() if k in slots},
            **_arguments(statement, fragment, include["args"], slots)}
    missing = slots - set(args)
    if missing:
        raise ValueError(f"{statement}: {fragment} needs {', '.join(sorted(missing))}")
    body = render(_SLOT.sub(lambda m: args[m[1]], template), statement, line)
    return "\n".join(include["indent"] + line if line else line for line in body.splitlines())


def _arguments(statement: str, fragment: str, text: str, slots: set[str]) -> dict[str, str]:
    """`slot: value` lines; a line that does not open with a slot's name continues the value."""
    args: dict[str, list[str]] = {}
    current = None
    for line in text.strip().splitlines():
        key, sep, rest = line.strip().partition(":")
        if sep and key in slots:
            current = key
            args[key] = [rest.strip()]
        elif current is None:
            raise ValueError(f"{statement}: {fragment} got {line.strip()!r}, not a slot of it")
        else:
            args[current].append(line.strip())
    return {k: " ".join(v).strip() for k, v in args.items()}


@cache
def fragment_text(name: str, line: str | None = None) -> str:
    """A fragment's statement text, its comment lines left out: the `line`'s version where it
    has one (`<name>.<line>.cypher`), else the common one."""
    folder = cypher_root() / FRAGMENTS
    own = folder / f"{name}.{line}.cypher"
    path = own if line is not None and own.is_file() else folder / f"{name}.cypher"
    if not path.is_file():
        raise ValueError(f"no fragment {name!r} in {path.parent}")
    return "\n".join(line for line in path.read_text(encoding="utf-8").splitlines()
                     if not line.lstrip().startswith("//"))


def all_query_names() -> list[str]:
    """Every statement (fragments are parts of statements, not statements)."""
    root = cypher_root()
    names = (str(p.relative_to(root).with_suffix("")).replace("\\", "/")
             for p in root.rglob("*.cypher"))
    return sorted(n for n in names if not n.startswith(f"{FRAGMENTS}/"))
