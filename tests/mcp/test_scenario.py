"""A coding session played through the MCP client: start, learn, fail, fix, hand off, resume."""

from __future__ import annotations

from fastmcp import FastMCP

from kg_brain.root.app import Brain
from kg_brain.surfaces.tools import build_server
from tests.support.brains import make_settings
from tests.support.mcp import call

FAILURE = ("Running the API tests failed.\nTraceback (most recent call last):\n"
           '  File "/home/dev/shop/tests/test_orders.py", line 12, in <module>\n'
           "ModuleNotFoundError: No module named 'shop.payments.stripe_client'")
FIX = ("The payments client moved to shop.billing.stripe; import it from there. The old "
       "module path shop.payments was removed in the billing refactor.")


def test_a_session_hands_off_to_the_next_one(server: FastMCP, project: str) -> None:
    start = call(server, "open_session")
    assert start["project"] == project and start["context"]["last_session"] is None
    assert start["inbox"]["count"] == 0

    call(server, "add_memory", content="Shop uses FastAPI with SQLAlchemy 2 and Postgres 16.",
         note_kind="project_context", pinned=True)
    decision = call(server, "add_memory", note_kind="decision",
                    content="Payments go through Stripe only; PayPal support was dropped.")
    failure = call(server, "record_failure", content=FAILURE)
    assert failure["failure_signature"].startswith("modulenotfounderror")
    resolved = call(server, "record_resolution", failure_zk_id=failure["zk_id"], fix_content=FIX)
    assert resolved["failure_memory_type"] == "permanent"

    preflight = call(server, "preflight_check",
                     task="Write tests for the Stripe payments client refund flow")
    top = preflight["mistakes"][0]
    assert top["zk_id"] == failure["zk_id"] and top["fixes"][0]["zk_id"] == resolved["fix_zk_id"]

    closed = call(server, "close_session", objective="Add refunds to the payments API",
                  completed=["refund endpoint", "Stripe client import fixed"],
                  blockers=[], next_steps=["write refund tests", "update API docs"],
                  key_files=["shop/billing/stripe.py"])
    assert closed["project"] == project and closed["archived_threads"] == []

    resumed = call(server, "open_session")["context"]
    assert resumed["last_session"]["zk_id"] == closed["summary_zk_id"]
    assert "write refund tests" in resumed["open_thread"]["content"]
    assert resumed["open_thread"]["zk_id"] == closed["open_thread_zk_id"]
    assert [d["zk_id"] for d in resumed["decisions"]] == [decision["zk_id"]]
    assert resumed["pinned"][0]["note_kind"] == "project_context"
    assert resumed["mistakes"][0]["fixes"][0]["zk_id"] == resolved["fix_zk_id"]

    again = call(server, "close_session", objective="Refund tests", completed=["tests"],
                 blockers=["docs need review"], next_steps=["ship"])
    assert again["archived_threads"] == [closed["open_thread_zk_id"]]
    latest = call(server, "get_session_context")
    assert latest["open_thread"]["zk_id"] == again["open_thread_zk_id"]


def test_session_context_stays_within_its_token_budget(brain: Brain, project: str) -> None:
    small = build_server(Brain(make_settings(kg_brain_project=project, session_context_tokens=200),
                               db=brain.db, embedder=brain.embedder))
    topics = ["caching", "logging", "retries", "pagination", "auth tokens", "migrations",
              "feature flags", "rate limits", "search ranking", "background jobs"]
    for topic in topics:
        call(small, "add_memory", note_kind="decision",
             content=f"We decided how to handle {topic} in the shop service after a long review.")
    context = call(small, "get_session_context")
    assert context["omitted"] > 0 and 0 < len(context["decisions"]) < len(topics)
    assert context["approx_tokens"] <= context["token_budget"]
