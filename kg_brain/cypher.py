"""Loads the Cypher statements shipped in `cypher/`: one statement per file, addressed by name.

`notes/create_note` names `cypher/notes/create_note.cypher`. In a wheel the folder is shipped as
`kg_brain/cypher`; in a source checkout it is the repository's top-level `cypher/`.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

_NAME = re.compile(r"^[a-z_]+(/[a-z0-9_]+)+$")


def cypher_root() -> Path:
    packaged = Path(__file__).with_name("cypher")
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parent.parent / "cypher"


@cache
def query(name: str) -> str:
    """Return the text of one statement; names are code constants, never caller input."""
    if not _NAME.match(name):
        raise ValueError(f"bad query name {name!r}")
    path = cypher_root() / f"{name}.cypher"
    return path.read_text(encoding="utf-8")


def all_query_names() -> list[str]:
    root = cypher_root()
    return sorted(
        str(p.relative_to(root).with_suffix("")).replace("\\", "/") for p in root.rglob("*.cypher")
    )
