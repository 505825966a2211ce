"""Real git repositories for the project identity tests and bench: the `git` binary in
temporary folders, never a faked `.git`."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

AUTHOR = ["-c", "user.name=kg-brain test", "-c", "user.email=test@example.invalid",
          "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"]


def git(cwd: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    done = subprocess.run(["git", *AUTHOR, *args], cwd=cwd, env=env, capture_output=True,
                          text=True, check=True)
    return done.stdout.strip()


def repository(path: Path, commits: int = 1, remote: str | None = None) -> Path:
    """A repository at `path` with `commits` commits (a file each) and an origin URL."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q")
    for n in range(commits):
        (path / f"file{n}.txt").write_text(f"{path} {n}\n", encoding="utf-8")  # its own commits
        git(path, "add", ".")
        git(path, "commit", "-q", "-m", f"commit {n}")
    if remote:
        git(path, "remote", "add", "origin", remote)
    return path


def worktree(repo: Path, path: Path, branch: str = "feature") -> Path:
    git(repo, "worktree", "add", "-q", "-b", branch, str(path))
    return path


def clone(source: Path, path: Path, *options: str) -> Path:
    git(source.parent, "clone", "-q", *options, str(source), str(path))
    return path
