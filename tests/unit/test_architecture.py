"""House rules the code must keep: stdout belongs to MCP, only settings.py reads the environment,
and the imports follow the picture in docs/ARCHITECTURE.md: every module in the folder of its part,
only the arrows the table allows, and no import cycle (function-level imports included)."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "kg_brain"
PICTURE = ROOT / "docs" / "ARCHITECTURE.md"


@cache
def modules() -> dict[str, ast.Module]:
    """Dotted names relative to the package (`domain.memory.write`, `surfaces.cli` for
    surfaces/cli/__init__.py)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
        if parts[-1] == "__init__" and len(parts) > 1:
            parts.pop()
        found[".".join(parts)] = ast.parse(path.read_text(encoding="utf-8"))
    return found


@cache
def table() -> dict[str, set[str]]:
    """part -> the parts it may import, read from the picture's table; a part is the folder
    kg_brain/<part>/."""
    parts = {}
    for line in PICTURE.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or cells[0] in ("folder", "") or set(cells[0]) <= {"-"}:
            continue
        parts[cells[0].rstrip("/")] = {a.strip() for a in cells[2].split(",") if a.strip()}
    return parts


def part_of(module: str) -> str | None:
    """A module's part is its folder (`store.notes` -> store); the package's `__init__` has none."""
    folder = module.split(".")[0]
    return folder if folder in table() else None


def imports(tree: ast.Module) -> set[str]:
    """Every kg_brain module imported anywhere in the file, resolved to a module name."""
    known = modules()
    found: set[str] = set()
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 \
                and (node.module == "kg_brain" or node.module.startswith("kg_brain.")):
            base = node.module.removeprefix("kg_brain").lstrip(".")
            names = [f"{base}.{a.name}".lstrip(".") if f"{base}.{a.name}".lstrip(".") in known
                     else base for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name.removeprefix("kg_brain.") for a in node.names
                     if a.name.startswith("kg_brain.")]
        found |= {n for n in names if n}
    return found


def test_the_picture_lists_parts_with_known_arrows() -> None:
    parts = table()
    assert len(parts) >= 8
    for allowed in parts.values():
        assert allowed <= set(parts)


def test_the_package_root_holds_only_the_part_folders() -> None:
    held = {p.name for p in PACKAGE.iterdir() if p.name != "__pycache__"}
    assert held == {"__init__.py", *table()}


def test_every_module_is_in_the_folder_of_a_part() -> None:
    assert [m for m in modules() if m != "__init__" and part_of(m) is None] == []


def test_imports_follow_the_allowed_arrows() -> None:
    bad = []
    for module, tree in modules().items():
        part = part_of(module)  # the package's own __init__ imports nothing
        allowed = table()[part] | {part} if part else set()
        for target in imports(tree):
            if part_of(target) not in allowed:
                bad.append(f"{module} ({part}) -> {target} ({part_of(target)})")
    assert bad == []


def test_there_is_no_import_cycle() -> None:
    graph = {m: imports(t) - {m} for m, t in modules().items()}
    cycles, state = [], dict.fromkeys(graph, 0)

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append(path[path.index(nxt):] + [nxt])
            elif state.get(nxt) == 0:
                visit(nxt, path + [nxt])
        state[node] = 2

    for start in graph:
        if state[start] == 0:
            visit(start, [start])
    assert cycles == []


def test_only_the_bench_command_reaches_the_benchmarks() -> None:
    """The benchmarks are the repository's bench/ package, outside the wheel: the server never
    imports them; `kg-brain bench` (surfaces.cli.commands) offers them where they are importable."""
    reaching = sorted({name for name, tree in modules().items() for node in ast.walk(tree)
                       if (isinstance(node, ast.ImportFrom) and node.level == 0
                           and (node.module or "").split(".")[0] == "bench")
                       or (isinstance(node, ast.Import)
                           and any(a.name.split(".")[0] == "bench" for a in node.names))})
    assert reaching == ["surfaces.cli.commands"]
    assert not (PACKAGE / "bench").exists()


def test_library_code_never_prints() -> None:
    offenders = [name for name, tree in modules().items() for node in ast.walk(tree)
                 if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "print"]
    assert offenders == []


def test_only_settings_reads_the_environment() -> None:
    readers = []
    for name, tree in modules().items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                if ast.unparse(node.func) in ("os.environ.get", "os.getenv"):
                    readers.append(name)
            if isinstance(node, ast.Subscript) and ast.unparse(node.value) == "os.environ":
                readers.append(name)
    assert sorted(set(readers)) == ["base.settings"]


def test_no_statement_name_appears_outside_the_store() -> None:
    """The domain and everything above it call typed store functions, never `area/name`."""
    areas = {p.name for p in (ROOT / "cypher").iterdir() if p.is_dir()} - {"browser"}
    pattern = re.compile(rf"^({'|'.join(sorted(areas))})/[a-z_]+$")
    offenders = [f"{name}: {node.value}" for name, tree in modules().items()
                 if not name.startswith("store.") or name.split(".")[1] in ("db", "localdb")
                 for node in ast.walk(tree)
                 if isinstance(node, ast.Constant) and isinstance(node.value, str)
                 and pattern.match(node.value)]
    assert offenders == []
