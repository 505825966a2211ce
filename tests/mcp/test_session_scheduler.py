"""A stdio window's maintenance is its own projects' only: the jobs follow the projects its
answers name, and their evolution drain leaves other projects' queues alone."""

from __future__ import annotations

from kg_brain.domain.memory.write import evolution_job
from kg_brain.enrichment.embed import Embedder
from kg_brain.root.app import Brain
from kg_brain.store import jobs
from kg_brain.store.db import Database
from kg_brain.surfaces.maintenance import Maintenance, SessionScheduler
from kg_brain.surfaces.tools import build_server
from tests.support.brains import delete_project, make_settings
from tests.support.mcp import call

NOTE = "The nightly sitemap build skips pages marked noindex in their front matter."


def test_jobs_follow_the_window_projects_and_drain_only_their_queue(
        db: Database, embedder: Embedder, project: str) -> None:
    brain = Brain(make_settings(kg_brain_project=project, scheduler_in_server=True), db=db,
                  embedder=embedder)
    server = build_server(brain)
    scheduler = SessionScheduler(brain)
    server.add_middleware(scheduler)
    other = f"{project}-other"
    try:
        call(server, "add_memory", content=NOTE)
        call(server, "archive_stale_notes", project="*")
        assert scheduler.projects == {project}
        assert {j.id for j in scheduler.scheduler.get_jobs()} == {
            f"archive:{project}", f"consolidation-report:{project}",
            f"evolution-drain:{project}", f"sentence-drain:{project}",
            f"forget-purge:{project}",
            f"catch-up:archive:{project}"}  # the window's rare jobs catch up missed runs too
        foreign = brain.writer.add(NOTE + " In the other project.", other).note.zk_id
        brain.db.write_tx(lambda tx: jobs.enqueue_jobs(
            tx, rows=[evolution_job(foreign, other)], now=brain.clock()))
        Maintenance(brain, project).evolution_drain()
        assert brain.evolution.process(project=other) == 1  # still queued for its own window
    finally:
        if scheduler.scheduler is not None:
            scheduler.scheduler.shutdown(wait=False)
        delete_project(brain.db, other)
