"""Integration fixtures: a Brain over the suite's Neo4j and embedder (offline enrichment)."""

from __future__ import annotations

import pytest

from kg_brain.app import Brain
from kg_brain.db import Database
from kg_brain.embed import SentenceTransformerEmbedder
from tests.support.brains import make_brain


@pytest.fixture
def brain(db: Database, embedder: SentenceTransformerEmbedder) -> Brain:
    return make_brain(db, embedder)
