"""Integration fixtures: a Brain over the suite's Neo4j and embedder (offline enrichment)."""

from __future__ import annotations

import pytest

from kg_brain.enrichment.embed import SentenceTransformerEmbedder
from kg_brain.root.app import Brain
from kg_brain.store.db import Database
from tests.support.brains import make_brain


@pytest.fixture
def brain(db: Database, embedder: SentenceTransformerEmbedder) -> Brain:
    return make_brain(db, embedder)
