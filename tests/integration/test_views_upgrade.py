"""The graph migration on a graph written as the previous version wrote it: notes without
entities and with `general` kinds, links without an origin, a hub with fifteen similarity links,
a fix linked to its mistake as RELATES_TO and a false CONTRADICTS between a fix and the decision
it carries out; real Neo4j, real embedder, heuristic enricher."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from kg_brain.enrichment.embed import Embedder
from kg_brain.root.app import Brain
from kg_brain.store.db import Database
from kg_brain.store.links import merge_links
from kg_brain.store.notes import create_notes, new_zk_id
from kg_brain.surfaces.cli import data as cli
from kg_brain.views.backup import read_file, restore_records
from kg_brain.views.upgrade import upgrade_graph
from tests.support.brains import make_brain, settings_for

NOW = datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)
KEEP = 5

MISTAKE = ("Mistake: pytest hangs forever at exit when the Neo4j driver is never closed; "
           "the session fixture leaked it.")
FIX = ("Fix: close the Neo4j driver in the session fixture's finaliser, so pytest exits "
       "instead of hanging.")
DECISION = ("Decision: webhook deliveries are retried with exponential backoff, at most five "
            "attempts, in the delivery worker.")
DECISION_FIX = ("Fixed the duplicate webhook deliveries by moving the retries into the delivery "
                "worker with exponential backoff, as decided.")
FAILURE = "The nightly export job crashed with MemoryError while building the CSV in memory."
FAILURE_FIX = "Stream the nightly export CSV row by row instead of building it in memory."
ARCHIVED = "The Neo4j driver used to be opened per test, which made the suite slow."
HUB = "The staging cluster deploys the web app from the main branch through Argo CD."
SPOKES = [
    "Argo CD syncs the staging web app every three minutes from the main branch.",
    "Staging deploys of the web app go through Argo CD; production needs a manual sync.",
    "The web app's staging cluster pulls images from the internal registry during deploys.",
    "A failed staging deploy of the web app is rolled back by Argo CD automatically.",
    "Argo CD notifications for staging deploys go to the deploys channel in Slack.",
    "The main branch is protected; merges trigger the staging deploy of the web app.",
    "Staging uses the same Helm chart as production for the web app deploys.",
    "The staging cluster runs two replicas of the web app behind an ingress.",
    "Argo CD on staging is reachable only over the VPN.",
    "Deploying the web app to staging takes about four minutes end to end.",
    "Staging web app deploys run database migrations before the new pods start.",
    "The staging cluster is rebuilt from Terraform every quarter.",
    "Preview environments copy the staging web app deploy setup from Argo CD.",
    "Secrets for the staging web app deploy come from the cluster's sealed secrets.",
    "Argo CD's staging app of apps lists the web app and the worker.",
]


@dataclass
class OldGraph:
    ids: dict[str, str]
    spokes: list[str]


def _old_graph(db: Database, embedder: Embedder, project: str) -> OldGraph:
    """Notes and links exactly as the previous version stored them: no MENTIONS, `general`
    kinds, no link origins, similarity weights on decided links and 1.0 on asserted ones."""
    texts = {"mistake": MISTAKE, "fix": FIX, "decision": DECISION, "decision_fix": DECISION_FIX,
             "failure": FAILURE, "failure_fix": FAILURE_FIX, "archived": ARCHIVED, "hub": HUB,
             **{f"spoke{i}": s for i, s in enumerate(SPOKES)}}
    ids = {name: new_zk_id() for name in texts}
    vectors = dict(zip(texts, embedder.encode_many(list(texts.values())), strict=True))
    rows = [{"zk_id": ids[name], "title": text[:60], "content": text, "context": "",
             "keywords": [], "tags": [], "project": project, "pinned": False,
             "memory_type": "archived" if name == "archived" else "permanent",
             "note_kind": "mistake" if name == "failure" else "general",
             "created": NOW, "updated": NOW, "access_count": 0, "embedding": vectors[name]}
            for name, text in texts.items()]
    create_notes(db, rows=rows)

    def similar(a: str, b: str, link_type: str = "RELATES_TO") -> dict[str, Any]:
        weight = round(sum(x * y for x, y in zip(vectors[a], vectors[b], strict=True)), 4)
        return {"src": ids[a], "dst": ids[b], "type": link_type, "reason": "similar",
                "weight": weight, "origin": None}

    links = [similar("fix", "mistake"), similar("decision_fix", "decision", "CONTRADICTS"),
             *(similar(f"spoke{i}", "hub") for i in range(len(SPOKES))),
             {"src": ids["failure_fix"], "dst": ids["failure"], "type": "FIXES",
              "reason": "verified fix", "weight": 1.0, "origin": None}]
    merge_links(db, rows=links, now=NOW - timedelta(days=30))
    return OldGraph(ids, [ids[f"spoke{i}"] for i in range(len(SPOKES))])


def _snapshot(db: Database, project: str) -> dict[str, Any]:
    """Every note's kind and every link between the project's notes, with all its properties."""
    kinds, _, _ = db.driver.execute_query(
        "MATCH (n:Note {project: $p}) RETURN n.zk_id AS id, n.note_kind AS kind ORDER BY id",
        p=project, database_=db.conn.database)
    links, _, _ = db.driver.execute_query(
        "MATCH (a:Note {project: $p})-[r]->(b:Note) RETURN a.zk_id AS src, type(r) AS type, "
        "b.zk_id AS dst, properties(r) AS props ORDER BY src, type, dst",
        p=project, database_=db.conn.database)
    return {"kinds": {r["id"]: r["kind"] for r in kinds},
            "links": [(r["src"], r["type"], r["dst"], r["props"]) for r in links]}


def _entities(db: Database, project: str) -> dict[str, int]:
    rows, _, _ = db.driver.execute_query(
        "MATCH (e:Entity {project: $p}) RETURN e.key AS key, e.notes AS notes",
        p=project, database_=db.conn.database)
    return {r["key"]: r["notes"] for r in rows}


def _links_of(snapshot: dict[str, Any], a: str, b: str) -> dict[str, dict[str, Any]]:
    return {t: props for src, t, dst, props in snapshot["links"] if (src, dst) == (a, b)}


def test_the_graph_migration_backfills_types_and_bounds_an_old_graph(
        db: Database, embedder: Embedder, project: str, tmp_path: Path, capsys: Any) -> None:
    old = _old_graph(db, embedder, project)
    ids = old.ids
    merge_links(db, now=NOW, rows=[  # made by hand once the new version ran, weak and untyped
        {"src": ids["archived"], "dst": ids["hub"], "type": "RELATES_TO", "reason": "by hand",
         "weight": 0.2, "origin": "manual"}])
    before = _snapshot(db, project)

    args = argparse.Namespace(migration="graph", apply=False, project=project,
                              backup_dir=str(tmp_path))
    assert cli.cmd_migrate(args, settings_for(db, link_top_k=KEEP)) == 0
    out = capsys.readouterr().out
    assert "links re-typed: 2 (CONTRADICTS -> RELATES_TO: 1, RELATES_TO -> FIXES: 1)" in out
    assert "pruned: 10" in out and "dry run:" in out
    assert _snapshot(db, project) == before and _entities(db, project) == {}
    assert not list(tmp_path.iterdir())

    brain = make_brain(db, embedder, link_top_k=KEEP)
    report = upgrade_graph(brain.deps, NOW, apply=True, project=project, backup_dir=tmp_path)
    assert report.applied and report.backup is not None and report.backup.exists()
    assert report.pruned == 10 and report.origins == {"auto": 17, "explicit": 1}
    after = _snapshot(db, project)

    assert report.kinds == {"fix": 2, "mistake": 1, "decision": 1}
    assert [after["kinds"][ids[n]] for n in ("mistake", "fix", "decision", "decision_fix")] == [
        "mistake", "fix", "decision", "fix"]
    fixes = _links_of(after, ids["fix"], ids["mistake"])
    old_link = _links_of(before, ids["fix"], ids["mistake"])["RELATES_TO"]
    assert list(fixes) == ["FIXES"] and fixes["FIXES"]["origin"] == "auto"
    assert (fixes["FIXES"]["created"], fixes["FIXES"]["weight"]) == (old_link["created"],
                                                                     old_link["weight"])
    assert list(_links_of(after, ids["decision_fix"], ids["decision"])) == ["RELATES_TO"]
    explicit = _links_of(after, ids["failure_fix"], ids["failure"])["FIXES"]
    assert explicit == {**_links_of(before, ids["failure_fix"], ids["failure"])["FIXES"],
                        "origin": "explicit"}
    hub = [s for s in old.spokes if _links_of(after, s, ids["hub"])]
    assert len(hub) == KEEP
    assert _links_of(after, ids["archived"], ids["hub"]) == _links_of(before, ids["archived"],
                                                                      ids["hub"])

    entities = _entities(db, project)
    assert entities["neo4j"] == 2  # the mistake and its fix; the archived note does not count
    assert all(count >= 0 for count in entities.values())

    again = upgrade_graph(brain.deps, NOW, apply=True, project=project, backup_dir=tmp_path)
    assert again.changes == 0 and again.backup is None
    assert _snapshot(db, project) == after

    _, records = read_file(report.backup)
    restore_records(db, records)
    assert _snapshot(db, project) == before


def test_the_graph_migration_leaves_other_projects_alone(db: Database, embedder: Embedder,
                                                         project: str, tmp_path: Path) -> None:
    other = f"{project}-other"
    _old_graph(db, embedder, other)
    before = _snapshot(db, other)
    brain: Brain = make_brain(db, embedder, link_top_k=KEEP)
    _old_graph(db, embedder, project)
    assert upgrade_graph(brain.deps, NOW, apply=True, project=project,
                         backup_dir=tmp_path).changes > 0
    assert _snapshot(db, other) == before and _entities(db, other) == {}


def test_the_graph_migration_adds_no_session_order_to_notes_of_no_session(
        db: Database, embedder: Embedder, project: str, tmp_path: Path) -> None:
    """Notes written minutes apart before sessions were recorded name no client session, so
    nothing says they were written in one: none is made to follow another, and a FOLLOWS an
    earlier version wrote stays."""
    minutes = {"a": 0, "b": 3, "c": 5, "d": 7}
    ids = {name: new_zk_id() for name in minutes}
    vectors = embedder.encode_many([f"note {name}" for name in minutes])
    create_notes(db, rows=[
        {"zk_id": ids[name], "title": name, "content": f"note {name}", "context": "",
         "keywords": [], "tags": [], "project": project, "pinned": False,
         "memory_type": "permanent", "note_kind": "general",
         "created": NOW + timedelta(minutes=m), "updated": NOW, "access_count": 0,
         "embedding": vector}
        for (name, m), vector in zip(minutes.items(), vectors, strict=True)])
    merge_links(db, now=NOW, rows=[{"src": ids["c"], "dst": ids["a"], "type": "FOLLOWS",
                                    "reason": "kept", "weight": 1.0, "origin": "auto"}])
    upgrade_graph(make_brain(db, embedder).deps, NOW, apply=True, project=project,
                  backup_dir=tmp_path)
    follows = {(src, dst) for src, t, dst, _ in _snapshot(db, project)["links"]
               if t == "FOLLOWS"}
    assert follows == {(ids["c"], ids["a"])}
