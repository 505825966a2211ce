"""MEMORY.md export and import against the real graph."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from kg_brain.base.clock import utc_now
from kg_brain.enrichment.embed import SentenceTransformerEmbedder
from kg_brain.store.db import Database
from kg_brain.surfaces.cli import data as cli
from kg_brain.views.memory_md import ROW, export_memory_md, import_memory_md
from tests.support.brains import make_brain, settings_for, small_graph


def test_export_puts_pinned_and_decisions_first(db: Database, embedder: SentenceTransformerEmbedder,
                                                project: str) -> None:
    graph = small_graph(make_brain(db, embedder), project)
    lines = export_memory_md(db, project, utc_now()).splitlines()
    assert len(lines) == 4 and all(ROW.match(line) for line in lines)
    refs = [m.group(1) for line in lines if (m := re.search(r"\[ref:(ZK-[0-9A-F]{8})\]", line))]
    assert refs[0] == graph.pinned and lines[0].startswith("- (5) ")
    assert set(refs[1:3]) == {graph.decision, graph.fix} and refs[3] == graph.mistake


def test_import_adds_new_rows_and_skips_known_ones(db: Database,
                                                   embedder: SentenceTransformerEmbedder,
                                                   project: str, tmp_path: Path) -> None:
    brain = make_brain(db, embedder)
    known = brain.writer.add("Deploys go out on Tuesdays only.", project).note.zk_id
    text = (f"- (4) [d:2026-06-01] Deploys go out on Tuesdays only. [ref:{known}]\n"
            "- (2) [d:2026-05-20] Use the staging bucket for load tests.\n")
    report = import_memory_md(brain.writer, text, project)
    assert report.known == [known] and len(report.added) == 1 and report.ignored_lines == 0
    added = brain.reader.get(report.added)[0]
    assert added.content == "Use the staging bucket for load tests." and added.project == project


def test_cli_writes_the_file(db: Database, embedder: SentenceTransformerEmbedder, project: str,
                             tmp_path: Path) -> None:
    make_brain(db, embedder).writer.add("Release notes live in CHANGES.md.", project)
    out = tmp_path / "MEMORY.md"
    args = argparse.Namespace(project=project, out=str(out))
    assert cli.cmd_export_memory_md(args, settings_for(db)) == 0
    assert "Release notes live in CHANGES.md." in out.read_text(encoding="utf-8")
