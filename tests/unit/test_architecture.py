"""House rules the code must keep: stdout belongs to MCP, imports point down the layers, and
only settings.py reads configuration from the environment."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "kg_brain"
LOWER = {"db", "cypher", "settings", "errors", "models", "validate", "embed", "redact",
         "signature", "store", "localdb"}
UPPER = {"memory", "search", "lifecycle", "consolidation", "sessions", "mistakes", "server",
         "serve", "cli", "bench", "views", "scheduling", "wire", "stats", "app"}
ENTRY = {"server", "serve", "cli", "wire"}
DOMAIN = {"memory", "search", "lifecycle", "consolidation", "sessions", "mistakes"}


def _modules() -> list[tuple[str, ast.Module]]:
    return [(str(p.relative_to(PACKAGE)), ast.parse(p.read_text(encoding="utf-8")))
            for p in sorted(PACKAGE.rglob("*.py"))]


def _top(path: str) -> str:
    return path.split("/", 1)[0].removesuffix(".py")


def _imports(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("kg_brain."):
            names.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            names |= {a.name.split(".")[1] for a in node.names if a.name.startswith("kg_brain.")}
    return names


def test_library_code_never_prints() -> None:
    offenders = [path for path, tree in _modules() for node in ast.walk(tree)
                 if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "print"]
    assert offenders == []


def test_lower_layers_do_not_import_upper_layers() -> None:
    bad = [(path, sorted(_imports(tree) & UPPER)) for path, tree in _modules()
           if _top(path) in LOWER and _imports(tree) & UPPER]
    assert bad == []


def test_domain_modules_do_not_import_entry_points() -> None:
    bad = [(path, sorted(_imports(tree) & ENTRY)) for path, tree in _modules()
           if _top(path) in DOMAIN and _imports(tree) & ENTRY]
    assert bad == []


def test_only_settings_reads_the_environment() -> None:
    readers = []
    for path, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                target = ast.unparse(node.func)
                if target in ("os.environ.get", "os.getenv"):
                    readers.append(path)
    assert sorted(set(readers)) == ["settings.py"]
