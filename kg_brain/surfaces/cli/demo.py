"""Starter notes and the demo project: what `kg-brain seed` writes, and the Browser pictures of
the README, regenerated from the shipped demo notes on a throwaway local server.

The pictures come from the same path a person takes: the starter notes go through the full
write pipeline (enrichment, typed links), the evolution queue is drained as the scheduler
would, and headless Chromium logs into the server's own Browser, which opens with the kg-brain
style and guide; the guide's blocks are clicked, not typed.
"""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from kg_brain.base.errors import InvalidInput
from kg_brain.base.settings import Settings
from kg_brain.domain.memory.write import AddResult, Writer
from kg_brain.root.app import Brain
from kg_brain.store.localdb import LocalNeo4j, free_port
from kg_brain.store.localdb.content import content_urls
from kg_brain.surfaces.cli.browser_pilot import BrowserPilot, chromium
from kg_brain.views.backup import read_file
from kg_brain.views.guide import STEPS, write_browser_content

log = logging.getLogger(__name__)
DEMO_NOTES = Path(__file__).with_name("demo-notes.json")
# Pictures per guide step: (file name, the result frame in fullscreen rather than beside the guide)
PICTURES = {"project_overview": (("browser-guide.png", False), ("browser-graph.png", True)),
            "mistakes_with_fixes": (("browser-mistakes.png", False),)}


def seed_notes(writer: Writer, records: Iterable[Any]) -> Iterator[AddResult]:
    """Each starter note through the full write pipeline (near-duplicates reinforce)."""
    for seed in records:
        if not isinstance(seed, dict) or "content" not in seed or "project" not in seed:
            raise InvalidInput("each seed needs 'content' and 'project'")
        yield writer.add(seed["content"], seed["project"],
                         memory_type=seed.get("memory_type", "permanent"),
                         note_kind=seed.get("note_kind", "general"),
                         pinned=bool(seed.get("pinned", False)))


def take_screenshots(out_dir: Path, settings: Settings) -> list[Path]:
    """Seed the demo on a fresh local server on free ports, then photograph its Browser."""
    _, records = read_file(DEMO_NOTES)
    with tempfile.TemporaryDirectory(prefix="kg-brain-demo-") as home:
        server = LocalNeo4j(home=Path(home), bolt_port=free_port(), http_port=free_port(),
                            heap="1g", pagecache="256m", browser_port=free_port(),
                            cache_dir=settings.kg_brain_cache_dir)
        write_browser_content(server.browser_dir)
        try:
            conn = server.start(timeout_s=180)
            demo = settings.model_copy(update={
                "neo4j_uri": conn.uri, "neo4j_user": conn.user, "neo4j_password": conn.password,
                "neo4j_database": conn.database, "scheduler_in_server": False})
            brain = Brain(demo)
            try:
                added = sum(1 for _ in seed_notes(brain.writer, records))
                while brain.evolution.process(50):
                    pass
            finally:
                brain.close()
            log.info("seeded %d demo notes; opening the Browser", added)
            with chromium(1400, 860) as driver:
                pilot = BrowserPilot(driver)
                pilot.log_in(f"http://127.0.0.1:{server.http_port}/browser/", conn.user,
                             str(conn.password))
                style_url, _ = content_urls(server.browser_port)
                return _photograph(pilot, out_dir, style_url)
        finally:
            server.stop()


def _photograph(pilot: BrowserPilot, out_dir: Path, style_url: str) -> list[Path]:
    """Walk the guide in order, running the blocks of each pictured step."""
    style = pilot.style_result(style_url)  # the server's post-connect commands are done
    if style.error:
        raise InvalidInput(f"the Browser could not load the kg-brain style: {style.error}")
    result = pilot.run_block(0)  # the project picker: the demo is the only project
    if result.error:
        raise InvalidInput(f"the guide's project picker failed: {result.error}")
    taken = []
    for step in STEPS:
        pilot.next_slide()
        for index, _ in enumerate(pilot.blocks() if step.query in PICTURES else ()):
            result = pilot.run_block(index)
            if result.error:
                raise InvalidInput(f"guide step {step.title!r} failed: {result.error}")
        for name, fullscreen in PICTURES.get(step.query, ()):
            if fullscreen:
                pilot.toggle_fullscreen()
            else:
                pilot.hide_overview()
            pilot.settle_graph()
            taken.append(_save(pilot, out_dir / name))
            if fullscreen:
                pilot.toggle_fullscreen()
        if len(taken) == sum(len(p) for p in PICTURES.values()):
            break
    return taken


def _save(pilot: BrowserPilot, path: Path) -> Path:
    """A screenshot, reduced to a 256-colour palette when Pillow is there (a third the size)."""
    pilot.screenshot(path)
    try:
        from PIL import Image
    except ImportError:
        return path
    with Image.open(path) as image:
        small = image.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    small.save(path, optimize=True)
    return path
