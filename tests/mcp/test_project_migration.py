"""`kg-brain migrate projects` and `kg-brain project`: a store written under folder-name projects
is carried to the repositories' projects with nothing lost (counts before and after), a name two
repositories shared is left for the user to sort, and a journal undoes every change. Real git,
real Neo4j; the CLI handlers run as the command line runs them."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from bench.repos import clone, repository, worktree
from kg_brain.root.app import Brain
from kg_brain.store.db import Database
from kg_brain.surfaces.cli.projects import cmd_migrate_projects, cmd_project
from kg_brain.surfaces.tools import BrainTools
from kg_brain.surfaces.workspace import workspace_identity
from tests.support.brains import settings_for

TEXTS = ("The {p} service retries three times before it gives up.",
         "The {p} deploy runs from the release branch only.")


def old_store(tools: BrainTools, names: list[str]) -> dict[str, list[str]]:
    """Notes under folder-name projects, as kg-brain filed them before identities."""
    return {n: [tools.add_memory(t.format(p=n), n).zk_id for t in TEXTS] for n in names}


def keys_of(brain: Brain, ids: list[str]) -> set[str]:
    return {n.project for n in brain.reader.get(ids)}


def migrate(db: Database, base: Path, **options: object) -> int:
    args = argparse.Namespace(**{"apply": False, "undo": None, "scan": [str(base)],
                                 "backup_dir": str(base / "backups"), **options})
    return cmd_migrate_projects(args, settings_for(db))


def test_migration_carries_folder_projects_to_repositories_and_undoes(
        brain: Brain, db: Database, project: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    main = repository(tmp_path / f"{project}-svc")
    wt = worktree(main, tmp_path / f"{project}-svc-wt")
    copy = clone(main, tmp_path / f"{project}-svc-copy")
    a = repository(tmp_path / "team-a" / f"{project}-api")
    repository(tmp_path / "team-b" / f"{project}-api")
    names = [main.name, wt.name, copy.name, a.name, f"{project}-gone"]
    notes = old_store(BrainTools(brain), names)
    everything = [i for ids in notes.values() for i in ids]

    assert migrate(db, tmp_path) == 0
    dry = capsys.readouterr().out
    assert f"merge {wt.name} -> {main.name}" in dry and f"ambiguous: {a.name}" in dry
    assert keys_of(brain, everything) == set(names)  # a dry run changes nothing

    assert migrate(db, tmp_path, apply=True) == 0  # 0: the counts match
    out = capsys.readouterr().out
    before = next(line for line in out.splitlines() if line.startswith("before:"))
    assert before.replace("before", "after") in out and "notes 6" in before  # the svc family's
    assert keys_of(brain, notes[wt.name] + notes[copy.name]) == {main.name}
    assert keys_of(brain, notes[a.name]) == {a.name}  # two repositories: left to the user
    assert keys_of(brain, notes[f"{project}-gone"]) == {f"{project}-gone"}
    for folder in (wt, copy):
        identity = workspace_identity(folder)
        assert identity and brain.projects.claim(identity.id, identity.name) == main.name
    both = {brain.projects.claim(i.id, i.name) for i in map(workspace_identity, (
        a, tmp_path / "team-b" / a.name)) if i}
    assert len(both) == 2 and a.name not in both  # each its own, neither the shared notes

    journal = out.split("--undo ")[1].split()[0]
    assert migrate(db, tmp_path, undo=journal) == 0
    for name, ids in notes.items():
        assert keys_of(brain, ids) == {name}
    identity = workspace_identity(wt)
    assert identity and brain.projects.claim(identity.id, identity.name) == main.name  # anew


def run_project(db: Database, action: str, **args: object) -> None:
    assert cmd_project(argparse.Namespace(action=action, **args), settings_for(db)) == 0


def test_rename_merge_split_and_undo_keep_every_note(
        brain: Brain, db: Database, project: str, capsys: pytest.CaptureFixture[str]) -> None:
    tools = BrainTools(brain)
    first, second = f"{project}-one", f"{project}-two"
    notes = old_store(tools, [first, second])
    run_project(db, "rename", source=first, target=f"{project}-uno")
    assert keys_of(brain, notes[first]) == {f"{project}-uno"}
    capsys.readouterr()
    run_project(db, "merge", source=second, target=f"{project}-uno")
    merged = capsys.readouterr().out
    assert keys_of(brain, notes[second]) == {f"{project}-uno"}
    run_project(db, "split", source=f"{project}-uno", target=f"{project}-deploys",
                matching="deploy runs", ids=None)
    split = capsys.readouterr().out
    assert keys_of(brain, [notes[first][1], notes[second][1]]) == {f"{project}-deploys"}
    assert keys_of(brain, [notes[first][0], notes[second][0]]) == {f"{project}-uno"}
    for out in (split, merged):
        run_project(db, "undo", journal=out.split("project undo ")[1].split()[0])
    assert keys_of(brain, notes[second]) == {second}
    listed = {r["key"]: r["notes"] for r in brain.projects.listing()}
    assert listed[second] == 2 and listed[f"{project}-uno"] == 2
    assert f"{project}-deploys" not in listed


def test_claim_files_a_workspace_under_an_existing_project(
        brain: Brain, db: Database, project: str, tmp_path: Path) -> None:
    notes = old_store(BrainTools(brain), [f"{project}-legacy"])
    checkout = repository(tmp_path / f"{project}-new-name")
    run_project(db, "claim", key=f"{project}-legacy", path=str(checkout))
    identity = workspace_identity(checkout)
    assert identity and brain.projects.claim(identity.id, identity.name) == f"{project}-legacy"
    assert keys_of(brain, notes[f"{project}-legacy"]) == {f"{project}-legacy"}
    assert json.dumps(brain.projects.listing())  # rows are plain data
