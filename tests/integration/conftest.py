"""Integration fixtures: a Brain over the suite's Neo4j and embedder (offline enrichment)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kg_brain.enrichment.embed import SentenceTransformerEmbedder
from kg_brain.root.app import Brain
from kg_brain.store.db import Database
from tests.support.brains import drains_held, make_brain


@pytest.fixture
def brain(db: Database, embedder: SentenceTransformerEmbedder) -> Brain:
    return make_brain(db, embedder)


@pytest.fixture
def own_drains(db: Database, project: str) -> Iterator[None]:
    """The test's project is drained by nobody but the test (tests/support/brains.drains_held)."""
    with drains_held(db, project):
        yield
