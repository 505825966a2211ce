"""MCP fixtures: the real server over a Brain built from the shared test database and embedder,
driven through a real fastmcp Client in memory. The workspace project is the test's project."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastmcp import FastMCP

from kg_brain.enrichment.embed import SentenceTransformerEmbedder
from kg_brain.root.app import Brain
from kg_brain.store.db import Database
from kg_brain.surfaces.tools import build_server
from tests.support.brains import make_settings


@pytest.fixture
def brain(db: Database, embedder: SentenceTransformerEmbedder, project: str) -> Iterator[Brain]:
    yield Brain(make_settings(kg_brain_project=project), db=db, embedder=embedder)


@pytest.fixture
def server(brain: Brain) -> FastMCP:
    return build_server(brain)
