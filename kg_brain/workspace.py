"""The project a workspace folder stands for, and how a client names it to the shared service.

Light on purpose (the standard library and the settings): the stdio relay names its window's
project with it before any MCP library loads. A workspace's project is the name of the git root
holding it, else the folder's own name; KG_BRAIN_PROJECT overrides the working directory's.
Clients of the HTTP service name it in the URL's `project` query parameter (what
`kg-brain wire --url` writes and the relay sends), or in the X-KG-Brain-Project header; their
tool profile (kg_brain/profiles.py) the same way, in `tools` or X-KG-Brain-Tools.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from kg_brain import validate
from kg_brain.settings import Settings

DEFAULT_PROJECT = "general"
PROJECT_PARAM = "project"
PROJECT_HEADER = "x-kg-brain-project"
TOOLS_PARAM = "tools"
TOOLS_HEADER = "x-kg-brain-tools"
SESSION_HEADER = "x-kg-brain-session"  # the window a call comes from (kg_brain/client_session.py)
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


def workspace_project(folder: Path) -> str | None:
    """The project a workspace folder stands for: its git root's name, else its own name.
    A folder that does not exist here (a remote client's path) is named as given."""
    root = git_root(folder)
    return slug((root or folder).name)


def default_project(settings: Settings, cwd: Path | None = None) -> str:
    """KG_BRAIN_PROJECT, else the git root of `cwd` (the working directory), else 'general'."""
    if settings.kg_brain_project:
        return validate.project(settings.kg_brain_project)
    root = git_root((cwd or Path.cwd()).resolve())
    return (slug(root.name) if root else None) or DEFAULT_PROJECT


def client_url(url: str, project: str | None, tools: str) -> str:
    """`url` naming `project` (when given) and the tool profile in its query, replacing any
    it named."""
    parts = urlsplit(url)
    named = [(PROJECT_PARAM, project)] if project else []
    query = [(k, v) for k, v in parse_qsl(parts.query) if k not in (PROJECT_PARAM, TOOLS_PARAM)]
    return urlunsplit(parts._replace(query=urlencode([*query, *named, (TOOLS_PARAM, tools)])))
