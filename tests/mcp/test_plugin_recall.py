"""The plugin's `recall` action (POST /plugin/recall) on the real store and embedder: the notes
relevant to a user message come back as short previews with their ids, within the budget; an
unrelated message gets nothing; a note the session has shown is not shown again."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_brain.base.errors import InvalidInput
from kg_brain.root.app import Brain
from kg_brain.surfaces.plugin_api import PluginActions
from kg_brain.surfaces.tools import BrainTools

CENTS = ("Invoice amounts are stored in cents as integers, never as floats: float rounding "
         "lost a cent on split payments. " + "The ledger export divides by 100 at the edge. " * 8)
STAGING = "The staging database is reset every Sunday at 03:00 UTC by the ops cron job."
ASK = "Should the invoice amount be a float when I store it?"


def test_recall_shows_relevant_notes_once_and_nothing_for_an_unrelated_message(
        brain: Brain, project: str, tmp_path: Path) -> None:
    tools = BrainTools(brain)
    cents = tools.add_memory(CENTS, project).zk_id
    staging = tools.add_memory(STAGING, project).zk_id
    actions = PluginActions(tools)
    folder = str(tmp_path / project)

    found = actions.recall({"directory": folder, "text": ASK})
    assert found["project"] == project and found["ids"][0] == cents and staging not in found["ids"]
    line = next(line for line in found["text"].splitlines() if cents in line)
    assert "relevance 0." in line and "cents" in line and len(line) < 320  # a preview, cut
    assert "recall(zk_ids)" in found["text"]

    unrelated = actions.recall({"directory": folder, "text": "Write a haiku about autumn leaves"})
    assert unrelated["text"] == "" and unrelated["ids"] == []

    again = actions.recall({"directory": folder, "text": ASK, "shown": found["ids"]})
    assert cents not in again["ids"] and cents not in again["text"]

    small = actions.recall({"directory": folder, "text": ASK, "budget_tokens": 50})
    assert len(small["text"]) <= 200 and small["ids"] == []  # no preview fits in 200 chars
    with pytest.raises(InvalidInput):
        actions.recall({"directory": folder, "text": ASK, "shown": "ZK-1"})
