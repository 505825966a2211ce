"""The plugin's session-end handoff (POST /plugin/close) on the real store and embedder: with an
OpenAI-compatible LLM configured (a scripted endpoint on 127.0.0.1) the handoff written to Neo4j
is the model's summary of the session; when the model fails or is too slow, it is the faithful
extract, and the handoff is written either way."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kg_brain.enrichment.embed import SentenceTransformerEmbedder
from kg_brain.enrichment.llm.router import SESSION_PROMPT
from kg_brain.root.app import Brain
from kg_brain.store.db import Database
from kg_brain.surfaces.plugin_api import PluginActions
from kg_brain.surfaces.tools import BrainTools
from tests.support.brains import make_settings
from tests.support.chat import ChatServer

SESSION = {"requests": ["Fix the failing billing tests", "Also bump the changelog"],
           "edited": ["billing/http.py", "CHANGELOG.md"],
           "events": ["ran `pytest tests/billing` (exit 1)", "edited billing/http.py",
                      "ran `pytest tests/billing` (exit 0)", "edited CHANGELOG.md"]}
SUMMARY: dict[str, Any] = {
    "objective": "Repair the billing test suite and note it in the changelog",
    "completed": ["Fixed the Retry import in billing/http.py: tests/billing passes",
                  "Changelog entry added"],
    "blockers": [], "next_steps": ["Release 2.4.1 with the billing fix"]}


@pytest.fixture()
def chat() -> Iterator[ChatServer]:
    server = ChatServer()
    yield server
    server.close()


def actions(db: Database, embedder: SentenceTransformerEmbedder, chat: ChatServer,
            timeout_s: float) -> PluginActions:
    settings = make_settings(llm_provider="openai", openai_base_url=f"{chat.url}/v1",
                             hard_model_id="test/hard", llm_timeout_s=timeout_s,
                             llm_max_retries=0)
    return PluginActions(BrainTools(Brain(settings, db=db, embedder=embedder)))


def handoff(db: Database, plugin: PluginActions, project: str, folder: Path) -> str:
    """The content of the session_summary that closing the session wrote."""
    closed = plugin.close({"directory": str(folder / project), **SESSION})
    assert closed["project"] == project
    return plugin.tools.recall([closed["summary_zk_id"]]).notes[0].content


def asked(chat: ChatServer) -> dict[str, Any]:
    """The summary request: the hard model, the handoff prompt, the session's record."""
    request = next(r["body"] for r in chat.requests if r["body"]["model"] == "test/hard")
    assert request["messages"][0]["content"] == SESSION_PROMPT
    return dict(json.loads(request["messages"][1]["content"]))


def test_with_an_llm_the_handoff_is_its_summary_of_the_session(
        db: Database, embedder: SentenceTransformerEmbedder, chat: ChatServer, project: str,
        tmp_path: Path) -> None:
    chat.reply(SUMMARY)  # the first request; the notes' enrichment after it falls back
    text = handoff(db, actions(db, embedder, chat, 5.0), project, tmp_path)

    assert text.startswith(f"Objective: {SUMMARY['objective']}")
    assert "Fixed the Retry import" in text and "Release 2.4.1" in text
    assert "ran `pytest tests/billing` (exit 1)" not in text  # the extract's lines are not it
    record = asked(chat)
    assert record["requests"] == SESSION["requests"]
    assert "ran `pytest tests/billing` (exit 1)" in record["extract"]["completed"]


@pytest.mark.parametrize("failure", ["error", "timeout"])
def test_when_the_llm_fails_the_handoff_is_the_extract(
        db: Database, embedder: SentenceTransformerEmbedder, chat: ChatServer, project: str,
        tmp_path: Path, failure: str) -> None:
    if failure == "error":
        chat.reply("upstream overloaded", status=503)
    else:
        chat.reply(SUMMARY, delay=2.0)  # answers after the 0.5 s timeout
    text = handoff(db, actions(db, embedder, chat, 0.5), project, tmp_path)

    assert text.startswith("Objective: Fix the failing billing tests")
    assert "ran `pytest tests/billing` (exit 0)" in text and "edited billing/http.py" in text
    assert SUMMARY["objective"] not in text
    assert asked(chat)["requests"] == SESSION["requests"]
