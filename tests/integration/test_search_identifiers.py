"""Questions by an exact identifier on the real server: the note holding it comes first beside
look-alikes sharing its prefix or suffix, and one nobody holds gets nothing."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from kg_brain.enrichment.embed import SentenceTransformerEmbedder
from kg_brain.root.app import Brain
from kg_brain.store.db import Database
from tests.support.brains import make_brain

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)

NOTES = {
    "db42": "The connection leak starts at src/app/db.py:42 where the cursor is opened outside "
            "a context manager.",
    "db420": "src/app/db.py:420 retries the migration lock twice before it gives up.",
    "reset": "Uploads through the corporate proxy fail with ERR_CONN_RESET after 30 seconds: "
             "the proxy's idle timeout cuts them.",
    "refused": "The dev server answers ERR_CONN_REFUSED when vite is not running on port 5173.",
    "full_hash": "The retry loop regression came in with commit "
                 "4be8a71c2d9e0f3a5b6c7d8e9f0a1b2c3d4e5f60 on the release branch.",
    "short_hash": "The flaky login test was quarantined in 4be8a90 until the fixture is fixed.",
    "kg123": "KG-123: the export button stays disabled for read-only users.",
    "kg1234": "KG-1234: the export times out for projects over ten thousand notes.",
    "ttl": "cache.redis.ttl is 300 seconds in production and 30 in staging.",
    "ttl_seconds": "session.redis.ttl_seconds sets how long a login lasts; it is 86400.",
    "scratch": "Reporting tables are rebuilt nightly into ANALYTICS.LOOKER_SCRATCH by the "
               "dashboard service.",
    "scratch_like": "ANALYTICS.LOOKER_MARTS holds the curated marts the dashboards read.",
    "proguard": "The keep rules for the serialization library live in app/proguard-rules.pro.",
    "proguard_like": "Release builds shrink code with R8; consumer rules ship with each library.",
    "camel": "The websocket reconnect is handled by useSocketRetry in the client hooks.",
    "camel_like": "useSocketState exposes the connection status to the header badge.",
    "route2": "terraform plan replaces module.edge.aws_route_table.public[2] because its tags "
              "changed.",
    "route0": "module.edge.aws_route_table.public[0] keeps the default route to the NAT gateway.",
    "frozen": "CI installs with --frozen so a drifted lockfile fails the job instead of "
              "resolving again.",
    "frozen_like": "The frozen snapshot of the catalogue is rebuilt every Sunday night.",
    "mr87": "MR !87 moved the theme tokens into a package of their own.",
    "mr87_like": "The theme tokens package is consumed by 87 components.",
    "relay": "Commit 5d7e2a9 restored the retry budget of the mail relay after the outage.",
    "relay_like": "The mail relay pagination fix was cherry-picked onto the 3.2 branch.",
    "pilot": "Build v6.2.0-rc.3 of the desktop client went to the pilot customers on Friday.",
    "pilot_like": "Build 6.2.0-rc.4 of the desktop client fixed the tray icon on Windows.",
    "digest": "Production checkout is pinned by digest sha256:5c1e9a07d2b44f0e8a6d3b17c9e2f4a0b1c2"
              "d3e4f5a6b7c8d9e0f1a2b3c4d5e6 so a re-pushed tag cannot change it.",
    "digest_like": "The staging checkout runs sha256:5c1e77a0c3d9b2e4f6a8c0e2d4f6b8a0c2e4d6f8a0b2"
                   "c4e6d8f0a2b4c6e8d0f2 until the smoke tests pass.",
}

# each question by an identifier, and the note that holds it
ASKED = {
    "src/app/db.py:42": "db42",
    "src/app/db.py:420": "db420",
    "ERR_CONN_RESET": "reset",
    "ERR_CONN_REFUSED": "refused",
    "4be8a71": "full_hash",
    "4be8a71c2d9e0f3a5b6c7d8e9f0a1b2c3d4e5f60": "full_hash",
    "4be8a90": "short_hash",
    "KG-123": "kg123",
    "KG-1234": "kg1234",
    "what was KG-123 about?": "kg123",
    "cache.redis.ttl": "ttl",
    "session.redis.ttl_seconds": "ttl_seconds",
    "LOOKER_SCRATCH": "scratch",
    "ANALYTICS.LOOKER_SCRATCH": "scratch",
    "what's in app/proguard-rules.pro?": "proguard",
    "useSocketRetry": "camel",
    "module.edge.aws_route_table.public[2]": "route2",
    "why does the plan touch `module.edge.aws_route_table.public[0]`?": "route0",
    "--frozen": "frozen",
    "what does MR !87 change?": "mr87",
    "why was 5d7e2a9 cherry-picked?": "relay",
    "6.2.0-rc.3": "pilot",
    "what went out in v6.2.0-rc.4?": "pilot_like",
    "sha256:5c1e9a07d2b4": "digest",
}

# identifiers no note holds, each a look-alike of one that does
NOBODY = ["KG-12", "KG-12345", "ERR_CONN_ABORTED", "src/app/db.py:4", "7c1d0ee",
          "cache.redis.maxmemory", "useSocketReset", "LOOKER_SCRATCH_V2",
          "module.edge.aws_route_table.public[1]", "--snapshot", "MR !88",
          "why was 5d7e2b1 cherry-picked?", "sha256:5c1e9a07ffee"]


@pytest.fixture
def brain(db: Database, embedder: SentenceTransformerEmbedder) -> Brain:
    return make_brain(db, embedder, clock=lambda: NOW)


def note(content: str, project: str) -> dict[str, Any]:
    return {"content": content, "title": content[:40], "context": "", "keywords": [],
            "project": project}


@pytest.fixture
def held(brain: Brain, project: str) -> dict[str, str]:
    ids = brain.importer.add_many([note(t, project) for t in NOTES.values()])
    return dict(zip(NOTES, ids, strict=True))


@pytest.mark.parametrize("method", ["search_memory", "deep_search"])
def test_a_question_by_an_identifier_gets_its_holder_first(
        brain: Brain, held: dict[str, str], project: str, method: str) -> None:
    run = getattr(brain.search, method)
    wrong = {q: [h.zk_id for h in run(q, project)][:2] for q, key in ASKED.items()}
    wrong = {q: top for q, top in wrong.items() if not top or top[0] != held[ASKED[q]]}
    names = {v: k for k, v in held.items()}
    assert not wrong, {q: [names.get(z, z) for z in top] for q, top in wrong.items()}


@pytest.mark.parametrize("method", ["search_memory", "deep_search"])
def test_an_identifier_nobody_holds_gets_nothing(
        brain: Brain, held: dict[str, str], project: str, method: str) -> None:
    run = getattr(brain.search, method)
    names = {v: k for k, v in held.items()}
    answered = {q: [names[h.zk_id] for h in run(q, project)][:2] for q in NOBODY}
    assert not {q: top for q, top in answered.items() if top}
