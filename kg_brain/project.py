"""Project identity: which project a call belongs to when the agent does not say.

Order: the `project` argument; KG_BRAIN_PROJECT; the name of the git root of the server's working
directory (OpenCode spawns the server in the workspace); else "general". Every tool response names
the project it used, so a note never lands in the wrong project unnoticed.
"""

from __future__ import annotations

import re
from pathlib import Path

from kg_brain import validate
from kg_brain.settings import Settings

DEFAULT_PROJECT = "general"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def git_root(start: Path) -> Path | None:
    """The nearest ancestor holding `.git` (a directory, or a file for worktrees)."""
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def slug(name: str) -> str | None:
    """A directory name made into a valid project name, or None if nothing usable is left."""
    cleaned = _UNSAFE.sub("-", name).strip("-._")[:64]
    return cleaned or None


def default_project(settings: Settings, cwd: Path | None = None) -> str:
    if settings.kg_brain_project:
        return validate.project(settings.kg_brain_project)
    root = git_root((cwd or Path.cwd()).resolve())
    return (slug(root.name) if root else None) or DEFAULT_PROJECT


def resolve_project(settings: Settings, given: str | None, cwd: Path | None = None) -> str:
    """The caller's project if given (validated), else the derived default."""
    if given is not None and given.strip():
        return validate.project(given)
    return default_project(settings, cwd)
