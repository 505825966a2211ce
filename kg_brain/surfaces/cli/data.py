"""`kg-brain` commands for looking at, moving and caring for the memory: export/import,
MEMORY.md, migrations, schema check, seeding and the Obsidian mirror (browse: browse.py;
projects: projects.py)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tqdm import tqdm

from kg_brain.base import validate
from kg_brain.base.errors import InvalidInput
from kg_brain.base.settings import Settings
from kg_brain.root.app import Brain
from kg_brain.store import admin, views
from kg_brain.surfaces.cli.browse import add_parser as add_browse_parser
from kg_brain.surfaces.cli.demo import seed_notes
from kg_brain.surfaces.cli.projects import cmd_migrate_projects
from kg_brain.surfaces.cli.projects import register as register_projects
from kg_brain.views.backup import export_records, read_file, restore_records, write_jsonl
from kg_brain.views.memory_md import export_memory_md, import_memory_md
from kg_brain.views.schema import check_schema, migrate
from kg_brain.views.sentences import backfill_sentences
from kg_brain.views.upgrade import GraphReport, upgrade_graph


def _out(text: str) -> None:
    sys.stdout.write(text + "\n")


@contextmanager
def _bars(totals: dict[str, int] | None = None) -> Iterator[Callable[[str, int], None]]:
    """Progress bars on stderr, one per phase, created on first use."""
    bars: dict[str, tqdm[Any]] = {}

    def update(phase: str, n: int) -> None:
        if phase not in bars:
            bars[phase] = tqdm(desc=phase, total=(totals or {}).get(phase), unit=" items",
                               file=sys.stderr, dynamic_ncols=True)
        bars[phase].update(n)

    try:
        yield update
    finally:
        for bar in bars.values():
            bar.close()


def _atomic_write(path: Path, write: Callable[[Any], Any]) -> Any:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with tmp.open("w", encoding="utf-8") as fh:
            result = write(fh)
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)
    return result


# --- export / import -------------------------------------------------------------------------
def cmd_export(args: argparse.Namespace, settings: Settings) -> int:

    projects = [validate.project(p) for p in args.project] or None
    with Brain(settings) as brain:
        totals = sum(int(r["notes"]) for r in admin.note_counts(brain.db)
                     if projects is None or r["project"] in projects)
        with _bars({"notes": totals, "links and revisions": totals}) as bar:
            records = export_records(brain.db, projects, now=brain.clock(), progress=bar)
            if args.path == "-":
                counts = write_jsonl(records, sys.stdout)
            else:
                counts = _atomic_write(Path(args.path), lambda fh: write_jsonl(records, fh))
    sys.stderr.write(f"exported {counts.notes} notes, {counts.links} links, "
                     f"{counts.revisions} revisions\n")
    return 0


def cmd_import(args: argparse.Namespace, settings: Settings) -> int:

    is_backup, records = read_file(Path(args.path))
    rows = [] if is_backup else list(records)
    with Brain(settings) as brain, _bars(dict.fromkeys(("checked", "imported"), len(rows))) as bar:
        if is_backup:
            counts = restore_records(brain.db, records, args.as_project, progress=bar)
            _out(f"restored {counts.notes} notes, {counts.links} links, {counts.revisions} "
                 f"revisions ({counts.skipped} skipped: their notes are not in the database)")
            return 0
        default = args.as_project or args.project or settings.kg_brain_project
        for row in rows:
            if isinstance(row, dict) and default and (args.as_project or not row.get("project")):
                row["project"] = default
        ids = brain.importer.add_many(rows, progress=bar)
    _out(f"imported {len(ids)} notes")
    return 0


# --- MEMORY.md -------------------------------------------------------------------------------
def cmd_export_memory_md(args: argparse.Namespace, settings: Settings) -> int:

    with Brain(settings) as brain:
        text = export_memory_md(brain.db, args.project, brain.clock())
    if args.out:
        _atomic_write(Path(args.out), lambda fh: fh.write(text))
        sys.stderr.write(f"wrote {text.count(chr(10))} rows to {args.out}\n")
    else:
        sys.stdout.write(text)
    return 0


def cmd_import_memory_md(args: argparse.Namespace, settings: Settings) -> int:

    text = Path(args.path).read_text(encoding="utf-8")
    with Brain(settings) as brain:
        report = import_memory_md(brain.writer, text, validate.project(args.project))
    _out(f"added {len(report.added)}, matched existing {len(report.deduplicated)}, "
         f"already in the graph {len(report.known)}, ignored lines {report.ignored_lines}")
    return 0


# --- migrations and schema health ------------------------------------------------------------
def cmd_migrate(args: argparse.Namespace, settings: Settings) -> int:

    if args.migration == "projects":
        return cmd_migrate_projects(args, settings)
    project = validate.project(args.project) if args.project else None
    if args.migration == "sentences":
        with Brain(settings) as brain, _bars() as progress:
            filled = backfill_sentences(brain.deps, apply=args.apply, project=project,
                                        progress=progress)
        _out(f"notes without sentences: {filled.notes}" + (
            f"; filled {filled.filled} ({filled.sentences} sentences)" if filled.applied
            else "; dry run: add --apply to embed and store their sentences"))
        return 0
    if args.migration == "graph":
        with Brain(settings) as brain:
            graph = upgrade_graph(brain.deps, brain.clock(), apply=args.apply, project=project,
                                  backup_dir=Path(args.backup_dir))
        _graph_report(graph, settings.link_top_k)
        return 0
    with Brain(settings) as brain:
        report = migrate(brain.db, args.migration, brain.clock(), apply=args.apply,
                         project=project, backup_dir=Path(args.backup_dir))
    for c in report.changes:
        _out(f"{c.zk_id} ({c.project}): {json.dumps(c.old)} -> {json.dumps(c.new)}")
    if not args.apply:
        _out(f"dry run: {len(report.changes)} note(s) would change; add --apply to apply")
        return 0
    if report.backup:
        _out(f"backup: {report.backup}")
    _out(f"changed {report.changed} note(s)" + (
        f"; {len(report.skipped)} changed meanwhile, left alone" if report.skipped else ""))
    return 0


def _graph_report(r: GraphReport, keep: int) -> None:
    def counted(counter: dict[str, int]) -> str:
        return ", ".join(f"{k}: {n}" for k, n in sorted(counter.items())) or "none"

    verb = "changed" if r.applied else "would change"
    _out(f"notes in scope: {r.notes}")
    _out(f"mentions: {r.mentions} note(s) {verb}, naming {r.entities} entities")
    _out(f"kinds inferred: {r.kinds.total()} ({counted(r.kinds)})")
    _out(f"link origins set: {r.origins.total()} ({counted(r.origins)})")
    _out(f"links re-typed: {r.retypes.total()} ({counted(r.retypes)})")
    _out(f"similarity links beyond {keep} per note pruned: {r.pruned}")
    if r.backup:
        _out(f"backup: {r.backup}")
    if not r.applied:
        _out(f"dry run: {r.changes} change(s)" + ("; add --apply to apply" if r.changes else ""))


def cmd_check_schema(args: argparse.Namespace, settings: Settings) -> int:

    project = validate.project(args.project) if args.project else None
    with Brain(settings) as brain:
        violations = check_schema(brain.db, project)
    for v in violations:
        _out(f"{v.zk_id} ({v.project}): {'; '.join(v.problems)}")
    if violations:
        sys.stderr.write(f"schema check failed: {len(violations)} note(s) violate the schema\n")
        return 1
    _out("schema check passed")
    return 0


# --- seeding and the mirror ------------------------------------------------------------------
def cmd_seed(args: argparse.Namespace, settings: Settings) -> int:
    is_backup, records = read_file(Path(args.path))
    if is_backup:
        raise InvalidInput(f"{args.path} is a backup; use `kg-brain import`")
    with Brain(settings) as brain:
        for result in seed_notes(brain.writer, records):
            verb = "matched" if result.deduplicated else "added"
            _out(f"{verb} {result.note.zk_id} ({result.note.project}): {result.note.title}")
    return 0


def cmd_mirror(args: argparse.Namespace, settings: Settings) -> int:

    project = validate.project(args.project) if args.project else None
    with Brain(settings) as brain:
        mirror = brain.mirror
        if not mirror.enabled:
            raise InvalidInput("the mirror is off: set OBSIDIAN_API_KEY or OBSIDIAN_VAULT_PATH")
        ids = [r["zk_id"] for r in views.list_note_ids(brain.db, project=project)]
        with _bars({"notes": len(ids)}) as bar:
            for start in range(0, len(ids), 100):
                bar("notes", mirror.sync(ids[start:start + 100]))
    _out(f"mirrored {len(ids)} notes to {', '.join(t.name for t in mirror.targets)}")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    add_browse_parser(sub)
    register_projects(sub)
    p = sub.add_parser("export", help="back up notes, links and revisions as JSON Lines")
    p.add_argument("path", help="output file ('-' for stdout)")
    p.add_argument("--project", action="append", default=[], help="only this project (repeat)")
    p.set_defaults(handler=cmd_export)

    p = sub.add_parser("import", help="restore a backup, or bulk-import JSON/JSONL note records")
    p.add_argument("path")
    p.add_argument("--as-project", help="copy into this project (backups get fresh zk_ids)")
    p.add_argument("--project", help="plain records: project for records that name none")
    p.set_defaults(handler=cmd_import)

    p = sub.add_parser("export-memory-md", help="write a project's MEMORY.md view")
    p.add_argument("--project", required=True)
    p.add_argument("--out", help="file to write (default: stdout)")
    p.set_defaults(handler=cmd_export_memory_md)

    p = sub.add_parser("import-memory-md", help="add the rows of a MEMORY.md file as notes")
    p.add_argument("path")
    p.add_argument("--project", required=True)
    p.set_defaults(handler=cmd_import_memory_md)

    p = sub.add_parser("migrate", help="schema conformance migrations and the graph upgrade "
                       "(dry run by default)")
    p.add_argument("migration", choices=["memory-schema", "note-kind", "memory-type", "graph",
                                         "projects", "sentences"])
    p.add_argument("--apply", action="store_true", help="apply (after writing a backup)")
    p.add_argument("--project", help="only this project")
    p.add_argument("--scan", action="append", default=[], help="projects: also the git "
                   "checkouts under this folder (repeat), beside the working directory's")
    p.add_argument("--undo", help="projects: play back the journal an --apply printed")
    p.add_argument("--backup-dir", default="backups")
    p.set_defaults(handler=cmd_migrate)

    p = sub.add_parser("check-schema", help="exit 1 naming every note that violates the schema")
    p.add_argument("--project", help="only this project")
    p.set_defaults(handler=cmd_check_schema)

    p = sub.add_parser("seed", help="add starter notes (JSON list of {content, project, ...})")
    p.add_argument("path")
    p.set_defaults(handler=cmd_seed)

    p = sub.add_parser("mirror", help="write every note (or a project's) to Obsidian now")
    p.add_argument("--project")
    p.set_defaults(handler=cmd_mirror)
