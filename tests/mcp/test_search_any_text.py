"""Search accepts any text, through the real MCP client and the plugin's recall action: a query
holding a secret, Lucene syntax or any Unicode never fails (not even with SECRETS_MODE=reject:
a query is matched on, never stored), and a note it names by an identifier is still found.
Automatic reads are not use: the plugin's recall and preflight_check leave access stamps as they
were; an agent's search_memory and deep_search stamp what they return."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastmcp import FastMCP

from kg_brain.enrichment.embed import SentenceTransformerEmbedder
from kg_brain.root.app import Brain
from kg_brain.store.db import Database
from kg_brain.surfaces.plugin_api import PluginActions
from kg_brain.surfaces.tools import BrainTools, build_server
from tests.support.brains import make_settings
from tests.support.mcp import call

TOKEN = "ghp_" + "Zq8Lw3Rt6Yp1Ks4Df7Gh0Jk2Mn5Bv9Cx3Az6E"
NOTE = "The mirror job rotates its deploy key with scripts/rotate_keys.sh (ticket OPS-2291)."
HOSTILE = {
    "github token": f"OPS-2291 fails with {TOKEN}",
    "password assignment": "password=hunter2hunter2 OPS-2291 login",
    "aws key": "OPS-2291 AKIAIOSFODNN7EXAMPLE aws_secret_access_key=wJalrXUtnFEMI/K7MDENG",
    "brackets": "OPS-2291] scripts/rotate_keys.sh[",
    "field syntax": "OPS-2291 title:x content:(a OR b) [a TO z] {x}",
    "quotes": '"OPS-2291 "unterminated',
    "operators": "OPS-2291 AND NOT * ? ~ ^2 && || !",
    "backslashes": "OPS-2291 C:\\keys\\rotate \\ \\\\",
    "unicode": "OPS-2291 ключ 鍵のローテーション 🔑 \u202eevil\u202c é\u0301",
    "lone surrogate": "OPS-2291 \ud83d rotate",
    "zero width": "OPS\u200b-2291 rotate\u2060keys",
}


@pytest.fixture
def strict_brain(db: Database, embedder: SentenceTransformerEmbedder,
                 project: str) -> Iterator[Brain]:
    """A Brain whose write gate refuses secrets instead of hiding them."""
    view = db.bound()
    view.secrets_mode = "reject"
    yield Brain(make_settings(kg_brain_project=project, secrets_mode="reject"), db=view,
                embedder=embedder)


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_any_query_text_searches_and_finds_the_note_it_names(
        strict_brain: Brain, project: str, tmp_path: Path, kind: str) -> None:
    server = build_server(strict_brain)
    held = call(server, "add_memory", content=NOTE)["zk_id"]
    query = HOSTILE[kind]
    for tool in ("search_memory", "deep_search"):
        hits = call(server, tool, query=query)["hits"]
        if "OPS-2291" in query:
            assert hits and hits[0]["zk_id"] == held, (tool, kind)
    assert call(server, "preflight_check", task=query)["project"] == project
    recalled = PluginActions(BrainTools(strict_brain)).recall(
        {"directory": str(tmp_path / project), "text": query})
    assert recalled["project"] == project and isinstance(recalled["text"], str)


def access(brain: Brain, zk_id: str) -> int:
    """The note's access count once the process's waiting stamps are written."""
    brain.deps.access.flush()
    return brain.reader.get([zk_id])[0].access_count


def test_automatic_reads_leave_access_stamps_and_an_agents_search_stamps(
        brain: Brain, server: FastMCP, project: str, tmp_path: Path) -> None:
    tools = BrainTools(brain)
    note = tools.add_memory(NOTE, project).zk_id
    failed = tools.record_failure("scripts/rotate_keys.sh failed: Permission denied (publickey)",
                                  project)
    fix = tools.record_resolution(failed.zk_id, "Added the deploy key to the mirror's "
                                  "authorized keys; rotate_keys.sh then succeeds.").fix_zk_id
    watched = [note, failed.zk_id, fix]
    before = {z: access(brain, z) for z in watched}
    recalled = PluginActions(tools).recall({"directory": str(tmp_path / project),
                                            "text": "how is the mirror deploy key rotated?"})
    assert note in recalled["ids"]
    assert call(server, "preflight_check", task="rotate_keys.sh Permission denied")["mistakes"]
    call(server, "open_session")
    assert {z: access(brain, z) for z in watched} == before
    found = call(server, "search_memory", query="how is the mirror deploy key rotated?")["hits"]
    assert note in {h["zk_id"] for h in found} and access(brain, note) == before[note] + 1
    call(server, "deep_search", query="how is the mirror deploy key rotated?")
    assert access(brain, note) == before[note] + 2
