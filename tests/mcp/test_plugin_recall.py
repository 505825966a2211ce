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


def test_an_earlier_session_s_passing_remark_comes_back_by_its_handoff_lines(
        brain: Brain, project: str, tmp_path: Path) -> None:
    actions = PluginActions(BrainTools(brain))
    folder = str(tmp_path / project)
    remarks = ["Set up the cache layer for the catalogue service",
               "Redis for the cache runs on port 6391 on the dev boxes",
               "Kofi Mensah owns the catalogue service, send schema changes to him",
               "Add a benchmark for cold cache reads"]
    earlier = actions.close({"directory": folder, "session_id": "ses_cacheA", "requests": remarks})
    handoff = brain.reader.found([earlier["summary_zk_id"]])[0].content
    assert all(r in handoff for r in remarks)  # every request kept, the middle ones too
    actions.close({"directory": folder, "session_id": "ses_cacheB",
                   "requests": ["Which port does Redis use on the dev boxes?"]})

    found = actions.recall({"directory": folder, "text": "Which port does Redis use on dev?",
                            "session_id": "ses_cacheB"})
    line = next(line for line in found["text"].splitlines() if earlier["summary_zk_id"] in line)
    assert "6391" in line and "Kofi" not in line  # the handoff's matching line, not its head
    assert earlier["summary_zk_id"] not in found["ids"]  # its other lines may come back later
    own = actions.recall({"directory": folder, "session_id": "ses_cacheB",
                          "text": "Which port does Redis use on the dev boxes?"})
    assert all("Which port" not in line for line in own["text"].splitlines()[2:])  # not its own

    person = actions.recall({"directory": folder, "text": "Who owns the catalogue service?",
                             "shown": found["ids"]})
    assert "Kofi Mensah" in person["text"]
