"""The typed store as data: every bound statement, and what each file says it returns."""

from __future__ import annotations

import importlib
import pkgutil
import re

import kg_brain.store
from kg_brain.base.cypher import query
from kg_brain.store.statement import STATEMENTS, Statement


def store_module(area: str) -> str:
    """The module whose functions run `cypher/<area>/`: kg_brain/store/<area>.py, but the
    benchmarks' own statements (`cypher/bench/`) run from bench/store.py, outside the package."""
    return "bench.store" if area == "bench" else f"kg_brain.store.{area}"


def bound_statements() -> dict[str, Statement]:
    """Every store module imported, the benchmarks' too, so every statement is bound."""
    for module in pkgutil.iter_modules(kg_brain.store.__path__):
        importlib.import_module(f"kg_brain.store.{module.name}")
    importlib.import_module(store_module("bench"))
    return dict(STATEMENTS)


def body(name: str, line: str | None = None) -> str:
    """The statement for the server `line`, its comment lines left out."""
    return "\n".join(text for text in query(name, line).splitlines()
                     if not text.strip().startswith("//"))


def schema_command(text: str) -> bool:
    """A schema command (it cannot be EXPLAINed), in whichever Cypher language it is written."""
    command = text.strip().upper().removeprefix("CYPHER 25").strip()
    return command.startswith(("CREATE", "SHOW", "CALL DB.AWAIT"))


def declared_returns(name: str) -> list[str]:
    """The keys of the header's `// returns: a, b, c; description` line ([] for `nothing`)."""
    lines = query(name).splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("// returns:"))
    text = lines[start].removeprefix("// returns:")
    for line in lines[start + 1:]:  # continuation lines are indented under the first
        if not line.startswith("//    ") or ";" in text:
            break
        text += " " + line.removeprefix("//").strip()
    keys = text.split(";", 1)[0].strip()
    return [] if keys == "nothing" else [k.strip() for k in keys.split(",")]


def parameters(name: str) -> set[str]:
    return set(re.findall(r"\$([A-Za-z_]\w*)", body(name)))


def row_keys(spec: Statement) -> list[str]:
    """The row's keys, read without resolving their types (the driver's are only named)."""
    return list(spec.row.__annotations__) if spec.row is not None else []
