"""The project a workspace folder stands for, and how a client names it to the shared service.

Light on purpose (the standard library and the settings): the stdio relay names its window's
project with it before any MCP library loads. A project follows the repository, not the folder:
a workspace inside a git repository stands for the repository's root commit (the oldest
parent-less commit reachable from HEAD), which its worktrees, clones and renamed copies share and
an unrelated repository never has; a repository without commits stands for its common git
directory (where its worktrees meet). A folder outside git stands for its resolved path. The
readable name is the repository's name in its remote URL, else its main folder's name
(kg_brain/domain/projects.py turns an identity into the project key notes are filed under, the name
when no other project holds it). KG_BRAIN_PROJECT names a project key outright.

Clients of the HTTP service name the workspace in the URL's query (`repo` and `name`, what
`kg-brain wire --url` writes and the relay sends), a project key in `project`, or the same in
the X-KG-Brain-Repo, X-KG-Brain-Name and X-KG-Brain-Project headers; their tool profile
(kg_brain/surfaces/profiles.py) the same way, in `tools` or X-KG-Brain-Tools.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from kg_brain.base.settings import Settings

DEFAULT_PROJECT = "general"
PROJECT_PARAM = "project"
PROJECT_HEADER = "x-kg-brain-project"
REPO_PARAM = "repo"
REPO_HEADER = "x-kg-brain-repo"
NAME_PARAM = "name"
NAME_HEADER = "x-kg-brain-name"
TOOLS_PARAM = "tools"
TOOLS_HEADER = "x-kg-brain-tools"
# the window a call comes from (kg_brain/surfaces/client_session.py)
SESSION_HEADER = "x-kg-brain-session"
GIT_TIMEOUT_S = 10.0
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
IDENTITY = re.compile(r"^(git|gitdir|path):[0-9a-f]{16,64}$")


@dataclass(frozen=True)
class Identity:
    """What a workspace stands for: `id` (`git:<root commit>`, `gitdir:<hash of the common git
    directory>` before the first commit, `path:<hash of the resolved folder>` outside git), its
    readable `name`, and for a repository with commits the id it had before its first commit
    (`before`), whose memory it takes over."""

    id: str
    name: str
    before: str | None = None


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


def _hashed(kind: str, text: str) -> str:
    return f"{kind}:{hashlib.sha256(text.encode()).hexdigest()[:32]}"


def _git(root: Path, *args: str) -> str | None:
    """One git command's output in `root`; None when git is missing or refuses."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                              env=env, timeout=GIT_TIMEOUT_S, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def _remote_name(root: Path) -> str | None:
    """The repository's name in its remote URL (origin first), e.g. `api` for
    `git@host:team/api.git` or a local clone's `/src/api/.git`."""
    found = _git(root, "config", "--get-regexp", r"^remote\..*\.url$")
    if not found:
        return None
    urls = dict(line.split(" ", 1) for line in found.splitlines() if " " in line)
    url = urls.get("remote.origin.url") or next(iter(urls.values()))
    parts = [p for p in re.split(r"[/:\\]", url.rstrip("/")) if p]
    if parts and parts[-1] == ".git":
        parts.pop()
    return slug(parts[-1].removesuffix(".git")) if parts else None


def repository_identity(root: Path) -> Identity:
    """The identity of the git checkout at `root` (a main folder, a worktree, a clone)."""
    common = _git(root, "rev-parse", "--path-format=absolute", "--git-common-dir")
    if common is None:  # not a repository git can read: the folder stands for itself
        return Identity(_hashed("path", str(root)), slug(root.name) or DEFAULT_PROJECT)
    common_dir = Path(common).resolve()
    main = common_dir.parent if common_dir.name == ".git" else common_dir
    name = _remote_name(root) or slug(main.name.removesuffix(".git")) or DEFAULT_PROJECT
    before = _hashed("gitdir", str(common_dir))
    roots = _git(root, "log", "--max-parents=0", "--format=%ct %H", "HEAD")
    if not roots:
        return Identity(before, name)
    oldest = min((int(t), h) for t, h in (line.split() for line in roots.splitlines()))
    return Identity(f"git:{oldest[1]}", name, before)


def workspace_identity(folder: Path) -> Identity | None:
    """What a workspace folder stands for (see the module docstring); None for a folder that
    names nothing (`/`). A folder that does not exist here (a remote client's path) stands
    for its path as given."""
    folder = folder.resolve() if folder.exists() else folder
    root = git_root(folder)
    if root is not None:
        return repository_identity(root)
    name = slug(folder.name)
    return Identity(_hashed("path", str(folder)), name) if name else None


class Identities:
    """Workspace identities remembered for `ttl_s` seconds: the OpenCode plugin names its folder
    on every hook, and finding an identity runs git three times (about 10-20 ms). A first commit
    or a new remote shows within that time."""

    def __init__(self, ttl_s: float = 60.0, size: int = 1024) -> None:
        self.ttl_s, self.size = ttl_s, size
        self.known: dict[Path, tuple[float, Identity | None]] = {}

    def of(self, folder: Path) -> Identity | None:
        now = time.monotonic()
        hit = self.known.get(folder)
        if hit is not None and now - hit[0] < self.ttl_s:
            return hit[1]
        found = workspace_identity(folder)
        if len(self.known) >= self.size:
            self.known.clear()
        self.known[folder] = (now, found)
        return found


def server_identity(settings: Settings, cwd: Path | None = None) -> str | Identity:
    """What a server names when its client names nothing: KG_BRAIN_PROJECT, else the
    repository of `cwd` (the working directory), else 'general' (a service runs in its state
    folder: that folder is no one's workspace)."""
    if settings.kg_brain_project:
        return settings.kg_brain_project
    root = git_root((cwd or Path.cwd()).resolve())
    return repository_identity(root) if root else DEFAULT_PROJECT


def client_identity(settings: Settings, cwd: Path | None = None) -> str | Identity:
    """What a client window names for its workspace `cwd`: KG_BRAIN_PROJECT, else the
    workspace's identity (outside git too), else 'general'."""
    if settings.kg_brain_project:
        return settings.kg_brain_project
    return workspace_identity(cwd or Path.cwd()) or DEFAULT_PROJECT


def client_url(url: str, named: str | Identity | None, tools: str) -> str:
    """`url` naming the project or workspace (when given) and the tool profile in its query,
    replacing any it named."""
    parts = urlsplit(url)
    if isinstance(named, Identity):
        given = [(REPO_PARAM, named.id), (NAME_PARAM, named.name)]
    else:
        given = [(PROJECT_PARAM, named)] if named else []
    ours = (PROJECT_PARAM, REPO_PARAM, NAME_PARAM, TOOLS_PARAM)
    query = [(k, v) for k, v in parse_qsl(parts.query) if k not in ours]
    return urlunsplit(parts._replace(query=urlencode([*query, *given, (TOOLS_PARAM, tools)])))
