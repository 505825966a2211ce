"""Benchmark: `kg-brain migrate projects` over a store written under folder-name projects.

Makes R repositories on disk with real git (half with a worktree, half with a clone: 2R folder
names), fills each folder name's project with synthetic notes (384-d vectors, links, entity
mentions drawn from a shared vocabulary so that merged projects share entities, and a kept
revision for one note in ten), then times the dry run, the migration (backup, binds, merges)
and its undo, and checks that nothing is lost: the counts (notes, forgotten, links, revisions,
mentions) before and after, every note under its repository's project after, every note back
under its folder name after the undo. Prints the figures as JSON and saves them; the bench
projects are deleted afterwards unless --keep.

    python -m bench.project_migration [--repos 10] [--notes 10000] [--out ...]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import uuid
from pathlib import Path
from typing import Any

import numpy as np

from bench.archive import populate, timed
from bench.common import delete_bench_project, emit_result
from bench.repos import clone, repository, worktree
from kg_brain.base.settings import load_settings
from kg_brain.domain.projects import Journal
from kg_brain.root.app import Brain
from kg_brain.store.entities import replace_mentions
from kg_brain.store.views import restore_revisions
from kg_brain.surfaces.cli.projects import apply_plan, checkouts, plan_migration
from kg_brain.surfaces.workspace import workspace_identity

VOCABULARY = 40  # entity keys shared by every project
MENTIONS = 3


def layout(base: Path, prefix: str, repos: int) -> dict[str, Path]:
    """Folder name -> folder: each repository and its worktree or clone."""
    folders: dict[str, Path] = {}
    for r in range(repos):
        name = f"{prefix}-r{r}"
        main = repository(base / name)
        second = worktree(main, base / f"{name}-wt") if r % 2 else \
            clone(main, base / f"{name}-copy")
        folders[name], folders[second.name] = main, second
    return folders


def fill(brain: Brain, project: str, notes: int, seed: int) -> int:
    """Synthetic notes with links, mentions and revisions; returns how many."""
    now = brain.clock()
    ids = populate(brain.db, project, notes, now, seed)
    rng = np.random.default_rng(seed)
    rows = [{"zk_id": i, "entities": [
        {"key": f"entity-{k}", "name": f"Entity {k}", "kind": "service"}
        for k in rng.choice(VOCABULARY, size=MENTIONS, replace=False)]} for i in ids]
    for start in range(0, len(rows), 1000):
        mention(brain, rows[start:start + 1000])
    kept = [{"note": i, "version": 1, "props": {"zk_id": i, "version": 1,
             "content": "an earlier version"}, "temporal": []} for i in ids[::10]]
    brain.db.write_tx(lambda tx: restore_revisions(tx, rows=kept))
    return len(ids)


def mention(brain: Brain, rows: list[dict[str, Any]]) -> None:
    now = brain.clock()
    brain.db.write_tx(lambda tx: replace_mentions(tx, rows=rows, now=now))


def per_key(brain: Brain, keys: list[str]) -> dict[str, int]:
    return {k: brain.projects.holdings([k])["notes"] for k in keys}


def run(repos: int, notes: int, seed: int, keep: bool) -> dict[str, Any]:
    settings = load_settings(neo4j_timeout_s=300)
    brain = Brain(settings)
    prefix = f"bench-ident-{uuid.uuid4().hex[:6]}"
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        folders = layout(base, prefix, repos)
        olds = sorted(folders)
        try:
            _, fill_s = timed(lambda: [fill(brain, old, notes // len(olds), seed + i)
                                       for i, old in enumerate(olds)])
            before_keys = per_key(brain, olds)
            plan, dry_s = timed(lambda: plan_migration(brain.projects, checkouts([base])))
            (backup, journal, before, after), apply_s = timed(
                lambda: apply_plan(brain, plan, base / "backups"))
            targets = sorted({k for _, k in plan.binds})
            after_keys = per_key(brain, targets + olds)
            resolved = {name: brain.projects.claim(i.id, i.name) for name, i in
                        ((n, workspace_identity(f)) for n, f in folders.items()) if i}
            undo = Journal.from_json(json.loads(journal.read_text(encoding="utf-8")))
            moved_back, undo_s = timed(lambda: brain.projects.undo(undo))
            undone_keys = per_key(brain, olds)
            return {
                "benchmark": "project_migration", "repositories": repos,
                "folder_projects": len(olds), "notes": sum(before_keys.values()),
                "fill_s": fill_s, "plan_s": dry_s, "apply_s": apply_s, "undo_s": undo_s,
                "binds": len(plan.binds), "merges": len(plan.merges),
                "before": before, "after": after, "lost": before != after,
                "notes_under_repository_projects": sum(after_keys[k] for k in targets),
                "each_folder_resolves_to_its_repository": all(
                    resolved[n] == resolved[f"{n.rsplit('-', 1)[0]}"] for n in folders
                    if n.endswith(("-wt", "-copy"))),
                "moved_back": moved_back, "undo_restores_each_folder": undone_keys == before_keys,
                "backup_mb": round(backup.stat().st_size / 1e6, 1),
            }
        finally:
            if not keep:
                for old in olds:
                    delete_bench_project(brain.db, old)
            brain.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repos", type=int, default=10)
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=Path("bench-results/project_migration.json"))
    parser.add_argument("--keep", action="store_true", help="keep the bench projects")
    args = parser.parse_args(argv)
    emit_result(run(args.repos, args.notes, args.seed, args.keep), args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
