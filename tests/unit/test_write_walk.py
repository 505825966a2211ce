"""The walk of one write stays short: the add_memory tool, `Writer.add`, the store function, its
statement file (docs/ARCHITECTURE.md, "Three walks through the parts")."""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any, get_type_hints

from kg_brain.domain.memory.write import Writer
from kg_brain.root.app import Brain
from kg_brain.store import notes
from kg_brain.surfaces.tools.notes import NoteTools

CYPHER = Path(__file__).resolve().parents[2] / "cypher"


def calls(fn: Callable[..., Any]) -> set[str]:
    """The dotted names a function calls (`self.brain.writer.add`, `notes.add_note`)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    return {ast.unparse(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}


def reached(cls: type, method: str) -> set[str]:
    """What a method calls, through the `self.` methods of its own class it calls."""
    seen, todo, found = set(), [method], set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        made = calls(getattr(cls, name))
        found |= made
        todo += [c.removeprefix("self.") for c in made
                 if c.startswith("self.") and c.count(".") == 1 and hasattr(cls, c[5:])]
    return found


def test_the_add_memory_tool_calls_the_writer_and_nothing_else_of_the_domain() -> None:
    made = calls(NoteTools.add_memory)
    assert "self.brain.writer.add" in made
    assert {c for c in made if c.startswith("self.brain.")} == {"self.brain.writer.add"}
    assert get_type_hints(Brain.writer.fget)["return"] is Writer  # type: ignore[attr-defined]


def test_the_writer_writes_the_note_through_one_store_function_bound_to_its_file() -> None:
    store_calls = {c for c in reached(Writer, "add") if c.startswith("notes.")}
    assert "notes.add_note" in store_calls
    statement = notes.add_note.statement  # type: ignore[attr-defined]
    assert (statement.name, statement.mode) == ("notes/add_note", "write")
    assert (CYPHER / "notes" / "add_note.cypher").is_file()
