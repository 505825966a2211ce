"""Neo4j Browser in a real headless Chromium against the locally provisioned server: the server
opens the Browser with the kg-brain style and guide, and every block of the guide, clicked as a
person would, sets its parameter or draws nodes rather than an error."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By

from kg_brain.enrichment.embed import SentenceTransformerEmbedder
from kg_brain.store.db import Database
from kg_brain.store.localdb.content import content_urls
from kg_brain.store.schema import bootstrap_schema
from kg_brain.surfaces.cli.browser_pilot import BrowserPilot, FrameResult, chromium
from kg_brain.views.guide import STEPS, TITLE
from tests.support.brains import make_brain, small_graph
from tests.support.neo4j import ServerUnderTest, local_server

NOTE_BLUE = "#4C8EDA"  # node.Note in kg-brain.grass; the Browser's own default is another colour
ENTITY_CYAN = "#57C7E3"


@pytest.fixture(scope="module")
def browser_server(neo4j_server: ServerUnderTest,
                   tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerUnderTest]:
    """The suite's server when it was provisioned here (so it carries the generated conf), else
    one more provisioned the same way: a server given by NEO4J_TEST_URI has a conf of its own."""
    if neo4j_server.local is not None and neo4j_server.local.browser_port:
        yield neo4j_server
        return
    with local_server(tmp_path_factory.mktemp("neo4j-home")) as server:
        yield server


@pytest.fixture(scope="module")
def browser_db(browser_server: ServerUnderTest) -> Iterator[Database]:
    database = Database(browser_server.conn)
    database.verify()
    bootstrap_schema(database)
    yield database
    database.close()


@pytest.fixture(scope="module")
def seeded_project(browser_db: Database, embedder: SentenceTransformerEmbedder) -> str:
    """A mistake with its fix, a revised decision and two pairs of near-duplicates (clusters),
    written through the write path, which also writes the entities they mention."""
    name = f"test-browser-{uuid.uuid4().hex[:8]}"
    brain = make_brain(browser_db, embedder)
    small_graph(brain, name)
    brain.writer.add("Run the test suite with pytest -q; the Neo4j-backed tests start a local "
                     "server themselves.", name, note_kind="pattern")
    brain.writer.add("The test suite runs with pytest -q and starts its own local Neo4j server "
                     "for the integration tests.", name, note_kind="general")
    # a pair no other test writes: the clusters block asks the database-wide vector index for
    # each note's 20 nearest, which other tests' copies of the notes above can fill
    brain.writer.add("The quokkasync mirror job copies tapir snapshots to the archive bucket "
                     "every night at 02:10.", name, note_kind="general")
    brain.writer.add("Every night at 02:10 the quokkasync mirror job copies the tapir snapshots "
                     "into the archive bucket.", name, note_kind="pattern")
    return name


def _style_url(server: ServerUnderTest) -> str:
    assert server.local is not None and server.local.browser_port
    return content_urls(server.local.browser_port)[0]


@pytest.fixture(scope="module")
def pilot(browser_server: ServerUnderTest) -> Iterator[BrowserPilot]:
    with chromium() as driver:
        page = BrowserPilot(driver)
        page.log_in(f"{browser_server.http_url}/browser/", browser_server.conn.user,
                    str(browser_server.conn.password))
        page.style_result(_style_url(browser_server))  # the post-connect commands have run
        yield page


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Path:
    folder = tmp_path_factory.mktemp("browser-screenshots")
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(f"Neo4j Browser screenshots: {folder}")
    return folder


@pytest.fixture(autouse=True)
def picture_of_a_failure(request: pytest.FixtureRequest, shots: Path) -> Iterator[None]:
    """What the page showed when a test failed, beside the other screenshots."""
    failed = request.session.testsfailed
    yield
    if request.session.testsfailed > failed and "pilot" in request.fixturenames:
        request.getfixturevalue("pilot").screenshot(shots / f"failed-{request.node.name}.png")


def test_connecting_applies_the_style_and_opens_the_guide(
        pilot: BrowserPilot, browser_server: ServerUnderTest, shots: Path) -> None:
    style = pilot.style_result(_style_url(browser_server))
    assert style.error is None and "node.Note" in style.text
    assert pilot.guide_title() == TITLE
    assert pilot.slide_count() == len(STEPS) + 1
    pilot.screenshot(shots / "00-connected.png")


def test_error_frames_are_recognised(pilot: BrowserPilot) -> None:
    """The check the guide test relies on: a failing query reads as an error, not as nodes."""
    result = pilot.run_command("MATCH (n:Note {zk_id: $kg_brain_no_such_param}) RETURN n")
    assert result.error and "kg_brain_no_such_param" in result.error and result.nodes == 0


def _check(result: FrameResult, what: str) -> None:
    assert result.error is None, f"{what}: {result.error}"


def test_every_guide_block_runs_and_draws_nodes(pilot: BrowserPilot, seeded_project: str,
                                                shots: Path) -> None:
    results: dict[str, FrameResult] = {}
    for slide in range(pilot.slide_count()):
        if slide:
            pilot.next_slide()
        for index, block in enumerate(pilot.blocks()):
            result = pilot.run_block(index)
            _check(result, block.text)
            if block.param:
                assert "Successfully set" in result.text, result.text
                if block.param == "project":  # picked: the most recently used project of the
                    # whole database, which other tests share; the guide's other way: type it
                    _check(pilot.run_command(f":param project => '{seeded_project}'"), "project")
                continue
            assert block.query is not None
            assert result.nodes > 0, f"{block.query} drew no nodes: {result.text[:300]}"
            results[block.query] = result
            pilot.screenshot(shots / f"{slide:02d}-{block.query.split('/')[1]}.png")
    assert sorted(results) == sorted(f"browser/{s.query}" for s in STEPS)
    assert results["browser/mistakes_with_fixes"].relationships >= 1  # the FIXES link
    assert results["browser/note_history"].nodes >= 2  # the note and its kept revision
    assert results["browser/entity_notes"].nodes >= 4  # pytest and the three notes about it
    assert results["browser/clusters"].nodes >= 2


def test_nodes_are_drawn_in_the_kg_brain_style(pilot: BrowserPilot, seeded_project: str) -> None:
    pilot.run_command(f":param project => '{seeded_project}'")
    pilot.run_command("MATCH p = (:Note {project: $project})-[:MENTIONS]->(:Entity) RETURN p")
    frame = pilot.driver.find_elements(By.CSS_SELECTOR, '[data-testid="frame"]')[0]

    def fills() -> set[str]:
        return {str(c.get_attribute("fill")).lower()
                for c in frame.find_elements(By.CSS_SELECTOR, "g.node circle")}

    def both_styles() -> bool:  # the graph view draws its nodes after the result frame shows
        return {NOTE_BLUE.lower(), ENTITY_CYAN.lower()} <= fills()

    pilot.wait("notes and entities drawn in the kg-brain colours", both_styles)
