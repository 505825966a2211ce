"""`kg-brain project list|rename|merge|split|claim|undo` and `kg-brain migrate projects`: the
projects notes are filed under, and carrying a store written under folder-name projects (before
projects followed repositories, kg_brain/surfaces/workspace.py) to the repositories' projects.

The migration finds workspaces on disk (the working directory and the git checkouts under each
`--scan` folder), names each by the old rule (its git root's folder name) and by its identity,
and plans: a repository takes the old projects only it stood for (its worktrees' and clones'
folder names are merged into it); an old name that stands for several repositories (two `api`
checkouts) is left as it is and reported, for the user to `claim` and `split`; an old name no
workspace found stays as it is. A dry run prints the plan; `--apply` writes a backup of every
project it touches first, prints their counts before and after, and a journal that `--undo`
(or `kg-brain project undo`) plays back. Every write of `kg-brain project` keeps a journal too.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from kg_brain.base.errors import InvalidInput
from kg_brain.base.settings import Settings
from kg_brain.domain.projects import Journal, Projects, candidates
from kg_brain.root.app import Brain
from kg_brain.store.projects import Holdings
from kg_brain.surfaces.workspace import (
    Identity,
    git_root,
    repository_identity,
    slug,
    workspace_identity,
)
from kg_brain.views.backup import export_records, write_jsonl

JOURNALS = "project-journals"
SKIP = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__", ".tox"})
SCAN_DEPTH = 4
SHOWN = 20  # unclaimed projects named in the plan


def _out(text: str) -> None:
    sys.stdout.write(text + "\n")


@dataclass(frozen=True)
class Checkout:
    """A git checkout found on disk: its folder, its old project name and its identity."""

    root: Path
    old: str
    identity: Identity


@dataclass
class Plan:
    binds: list[tuple[Identity, str]] = field(default_factory=list)  # identity -> its key
    merges: list[tuple[str, str]] = field(default_factory=list)  # old key -> new key
    ambiguous: dict[str, list[Checkout]] = field(default_factory=dict)
    unclaimed: list[str] = field(default_factory=list)  # old keys no checkout stands for

    def keys(self) -> list[str]:
        return sorted({k for pair in self.merges for k in pair} | {k for _, k in self.binds})


def checkouts(folders: list[Path], here: Path | None = None,
              depth: int = SCAN_DEPTH) -> list[Checkout]:
    """The git checkouts at and under `folders` (worktrees too: `.git` may be a file), and the
    one holding `here`."""
    found: dict[Path, Checkout] = {}

    def visit(folder: Path, left: int) -> None:
        if (folder / ".git").exists() and folder not in found:
            old = slug(folder.name)
            if old:
                found[folder] = Checkout(folder, old, repository_identity(folder))
        if left:
            try:
                children = sorted(p for p in folder.iterdir() if p.is_dir() and p.name not in SKIP)
            except OSError:
                return
            for child in children:
                visit(child, left - 1)

    root = git_root(here.resolve()) if here else None
    if root is not None:
        visit(root, 0)
    for folder in folders:
        visit(folder.resolve(), depth)
    return list(found.values())


def plan_migration(projects: Projects, found: list[Checkout]) -> Plan:
    rows = projects.listing()
    held = {r["key"] for r in rows if r["notes"] or r["forgotten"]}
    owner = {i: r["key"] for r in rows if r["id"] for i in [r["id"], *r["former_ids"]]}
    taken = {r["key"] for r in rows if r["id"]}
    by_old: dict[str, set[str]] = defaultdict(set)
    by_id: dict[str, list[Checkout]] = defaultdict(list)
    for c in found:
        by_old[c.old].add(c.identity.id)
        by_id[c.identity.id].append(c)
    plan = Plan(ambiguous={old: [c for c in found if c.old == old] for old, ids in by_old.items()
                           if len(ids) > 1 and old in held})
    for id, group in sorted(by_id.items()):
        identity = group[0].identity
        olds = sorted({c.old for c in group if c.old in held and len(by_old[c.old]) == 1})
        target = owner.get(id)
        if target is None:
            target = next((k for k in candidates(id, identity.name)
                           if k not in taken and (k not in held or k in olds)), None)
            if target is None:
                raise InvalidInput(f"no free project key for {identity.name} ({id})")
            plan.binds.append((identity, target))
            taken.add(target)
        plan.merges += [(old, target) for old in olds if old != target]
    claimed = {old for old in by_old} | set(owner.values())
    plan.unclaimed = sorted(held - claimed)
    return plan


def show_plan(plan: Plan) -> None:
    for identity, key in plan.binds:
        _out(f"repository {identity.name} ({identity.id[:16]}) -> project {key}")
    for old, key in plan.merges:
        _out(f"merge {old} -> {key}")
    for old, group in sorted(plan.ambiguous.items()):
        _out(f"ambiguous: {old} was the project of {len(group)} repositories: "
             + ", ".join(str(c.root) for c in group) + f". Left as it is: give its notes to "
             f"one with `kg-brain project claim {old} --path DIR`, move some to another with "
             f"`kg-brain project split {old} --into KEY --matching TEXT`")
    if plan.unclaimed:
        shown = ", ".join(plan.unclaimed[:SHOWN]) + (
            f" and {len(plan.unclaimed) - SHOWN} more" if len(plan.unclaimed) > SHOWN else "")
        _out(f"no checkout found for {len(plan.unclaimed)} project(s), left as they are: "
             f"{shown} (--scan the folders holding them, or `kg-brain project claim KEY "
             "--path DIR`)")


def _counts(label: str, held: Holdings) -> str:
    return f"{label}: " + ", ".join(f"{k} {v}" for k, v in held.items())


def _journal_path(folder: Path, what: str, suffix: str = ".json") -> Path:
    """A new file in `folder` that only the user may read (a backup holds the notes)."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = folder / f"{time.strftime('%Y%m%dT%H%M%S')}-{what}{suffix}"
    path.touch(mode=0o600)
    return path


def _keep(journal: Journal, folder: Path, what: str) -> Path:
    path = _journal_path(folder, what)
    path.write_text(json.dumps(journal.as_json()) + "\n", encoding="utf-8")
    return path


def apply_plan(brain: Brain, plan: Plan, backups: Path) -> tuple[Path, Path, Holdings, Holdings]:
    """Backup, the binds and merges, the journal; returns (backup, journal, before, after)."""
    projects, keys = brain.projects, plan.keys()
    backup = _journal_path(backups, "projects", ".jsonl")
    with backup.open("w", encoding="utf-8") as fh:
        write_jsonl(export_records(brain.db, keys, now=brain.clock()), fh)
    before = projects.holdings(keys)
    journal = projects.snapshot()
    for identity, key in plan.binds:
        projects.bind(identity.id, identity.name, key)
    for old, key in plan.merges:
        projects.merge(old, key, journal)
    return backup, _keep(journal, backups, "projects-undo"), before, projects.holdings(keys)


def _undo(brain: Brain, path: str) -> int:
    journal = Journal.from_json(json.loads(Path(path).read_text(encoding="utf-8")))
    moved = brain.projects.undo(journal)
    _out(f"undone: {moved} note(s) moved back, projects restored")
    return 0


def cmd_migrate_projects(args: argparse.Namespace, settings: Settings) -> int:
    with Brain(settings) as brain:
        if args.undo:
            return _undo(brain, args.undo)
        began = time.monotonic()
        plan = plan_migration(brain.projects, checkouts(list(map(Path, args.scan)), Path.cwd()))
        show_plan(plan)
        if not args.apply:
            _out(f"dry run: {len(plan.binds)} repositories, {len(plan.merges)} merge(s); add "
                 "--apply to apply")
            return 0
        backup, journal, before, after = apply_plan(brain, plan, Path(args.backup_dir))
        _out(f"backup: {backup}\n{_counts('before', before)}\n{_counts('after', after)}")
        _out(f"undo: kg-brain migrate projects --undo {journal} "
             f"({time.monotonic() - began:.1f} s)")
        return 0 if before == after else 1


# --- kg-brain project ------------------------------------------------------------------------
def cmd_project(args: argparse.Namespace, settings: Settings) -> int:
    with Brain(settings) as brain:
        projects = brain.projects
        if args.action == "list":
            for r in projects.listing():
                who = f"{r['name']} ({r['id'][:16]})" if r["id"] else "no repository"
                _out(f"{r['key']}\t{r['notes']} notes, {r['forgotten']} forgotten\t{who}")
            return 0
        if args.action == "undo":
            return _undo(brain, args.journal)
        if args.action == "claim":
            identity = workspace_identity(Path(args.path))
            if identity is None:
                raise InvalidInput(f"{args.path} names no workspace")
            key = projects.bind(identity.id, identity.name, args.key)
            _out(f"{args.path} ({identity.name}, {identity.id[:16]}) -> project {key}")
            return 0
        journal = projects.snapshot()
        keys = [args.source, args.target]
        before = projects.holdings(keys)
        if args.action == "split":
            ids = args.ids or projects.note_ids(args.source, args.matching)
            if not ids:
                raise InvalidInput("no note of the project matches; nothing to split")
            moved = projects.move(ids, args.source, args.target, journal)
        else:
            if args.action == "rename" and any(r["key"] == args.target
                                               for r in projects.listing()):
                raise InvalidInput(f"{args.target!r} exists; `merge` joins two projects")
            moved = projects.merge(args.source, args.target, journal)
        path = _keep(journal, settings.state_dir / JOURNALS, args.action)
        _out(f"{args.action}: {moved} note(s) moved from {args.source} to {args.target}")
        _out(f"{_counts('before', before)}\n{_counts('after', projects.holdings(keys))}")
        _out(f"undo: kg-brain project undo {path}")
        return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("project", help="list, rename, merge, split or claim projects",
                            description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    actions = parser.add_subparsers(dest="action", required=True)
    actions.add_parser("list", help="every project: key, notes, the repository it stands for")
    for name, help_text in (("rename", "give a project a new key (its repository follows)"),
                            ("merge", "move every note of SOURCE into TARGET")):
        p = actions.add_parser(name, help=help_text)
        p.add_argument("source")
        p.add_argument("target")
    p = actions.add_parser("split", help="move some notes of SOURCE into TARGET")
    p.add_argument("source")
    p.add_argument("--into", dest="target", required=True)
    chosen = p.add_mutually_exclusive_group(required=True)
    chosen.add_argument("--matching", help="the notes whose title or content holds this text")
    chosen.add_argument("--ids", nargs="+", help="these notes (zk_ids)")
    p = actions.add_parser("claim", help="file the workspace at --path under KEY from now on "
                                         "(the notes under KEY become its)")
    p.add_argument("key")
    p.add_argument("--path", default=".", help="the workspace folder (default: here)")
    p = actions.add_parser("undo", help="play a journal back (printed by every change)")
    p.add_argument("journal")
    parser.set_defaults(handler=cmd_project)
