"""`kg-brain bench upgrade`: the graph migration (`kg-brain migrate graph`) on a graph written as
the previous version wrote it.

N realistic synthetic notes (bench/corpus.py), embedded by the real embedder, are
stored without entities, half of them with the kind the caller gave and half left `general`;
each note links to its (up to) LINK_TOP_K most similar earlier notes above the link floor as
RELATES_TO weighted by similarity, without an origin and with no bound on inbound links, and a
third of the fixes carry an asserted FIXES (weight 1.0) to an earlier mistake. Timed: the dry run,
the apply (backup included) and a second apply; printed and saved: notes per second, what each
step changed, and the similarity degree (p50, p99, max) before and after.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from bench import corpus, store
from bench.common import run_in_project
from bench.degree import percentiles
from kg_brain.base.clock import utc_now
from kg_brain.base.settings import Settings
from kg_brain.root.app import Brain
from kg_brain.store.links import merge_links
from kg_brain.store.notes import create_notes, new_zk_id
from kg_brain.views.upgrade import GraphReport, upgrade_graph

BATCH = 1_000


def write_old_graph(brain: Brain, notes: int, project: str, seed: int) -> None:
    """Notes and links as the previous version stored them (see the module docstring)."""
    rng = random.Random(seed)
    records = [r | {"content": r["content"] + f" (case {i})"}
               for i, r in enumerate(corpus.notes(notes, project, seed))]
    vectors = np.asarray(brain.embedder.encode_many([r["content"] for r in records]),
                         dtype=np.float32)
    now = utc_now()
    rows = [{"zk_id": new_zk_id(), "title": r["content"][:80], "content": r["content"],
             "context": "", "keywords": [], "tags": [], "project": project, "pinned": False,
             "memory_type": "permanent", "created": now, "updated": now, "access_count": 0,
             "note_kind": r["note_kind"] if rng.random() < 0.5 else "general",
             "embedding": vectors[i].tolist()} for i, r in enumerate(records)]
    for start in range(0, len(rows), BATCH):
        create_notes(brain.db, rows=rows[start:start + BATCH])
    ids = [r["zk_id"] for r in rows]
    links = _similarity_links(ids, vectors, brain.settings.link_top_k,
                              brain.settings.link_min_cosine)
    mistakes: list[str] = []
    for zk_id, record in zip(ids, records, strict=True):
        if record["note_kind"] == "mistake":
            mistakes.append(zk_id)
        elif record["note_kind"] == "fix" and mistakes and rng.random() < 1 / 3:
            links.append({"src": zk_id, "dst": rng.choice(mistakes), "type": "FIXES",
                          "reason": "verified fix", "weight": 1.0, "origin": None})
    for start in range(0, len(links), 5 * BATCH):
        merge_links(brain.db, rows=links[start:start + 5 * BATCH], now=now)


def _similarity_links(ids: list[str], vectors: NDArray[np.float32], top_k: int,
                      floor: float) -> list[dict[str, Any]]:
    """Each note to its most similar earlier notes, as the previous writer chose them."""
    links = []
    for i in range(1, len(ids)):
        sims = vectors[:i] @ vectors[i]
        for j in np.argsort(-sims)[:top_k]:
            if sims[j] >= floor:
                links.append({"src": ids[i], "dst": ids[int(j)], "type": "RELATES_TO",
                              "reason": "similar", "weight": round(float(sims[j]), 4),
                              "origin": None})
    return links


def _steps(report: GraphReport) -> dict[str, Any]:
    return {"mentions": report.mentions, "entities": report.entities,
            "kinds": dict(report.kinds), "origins": dict(report.origins),
            "retypes": dict(report.retypes), "pruned": report.pruned, "changes": report.changes}


def _degree(brain: Brain, project: str) -> dict[str, Any]:
    rows = store.note_degrees(brain.db, project=project)
    return {"similarity": percentiles([r["similarity"] for r in rows]),
            "typed": percentiles([r["typed"] for r in rows])}


def run(brain: Brain, notes: int, project: str, seed: int) -> dict[str, Any]:
    began = time.perf_counter()
    write_old_graph(brain, notes, project, seed)
    result: dict[str, Any] = {"benchmark": "upgrade", "notes": notes,
                              "link_top_k": brain.settings.link_top_k,
                              "write_old_graph_s": round(time.perf_counter() - began, 1),
                              "degree_before": _degree(brain, project)}
    with tempfile.TemporaryDirectory() as backups:
        for name, apply in (("dry_run", False), ("apply", True), ("second_apply", True)):
            start = time.perf_counter()
            report = upgrade_graph(brain.deps, brain.clock(), apply=apply, project=project,
                                   backup_dir=Path(backups))
            seconds = time.perf_counter() - start
            result[name] = {"s": round(seconds, 2), "notes_per_s": round(notes / seconds, 1),
                            "backup_mb": round(report.backup.stat().st_size / 2**20, 1)
                            if report.backup else None, **_steps(report)}
    result["degree_after"] = _degree(brain, project)
    return result


def cmd_upgrade(args: argparse.Namespace, settings: Settings) -> int:
    return run_in_project(settings, "upgrade", args.keep, args.out,
                          lambda brain, project: run(brain, args.notes, project, args.seed))


def add_parser(kinds: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = kinds.add_parser("upgrade", help="the graph migration on a graph the previous version "
                         "wrote")
    p.add_argument("--notes", type=int, default=3_000)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--keep", action="store_true", help="keep the bench project afterwards")
    p.add_argument("--out", type=Path, default=Path("docs/bench/upgrade.json"))
    p.set_defaults(handler=cmd_upgrade)
