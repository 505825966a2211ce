"""The LLM router and both providers, driven against a real OpenAI-compatible HTTP endpoint.

The endpoint (tests/support/chat.py) is a small stdlib HTTP server on 127.0.0.1 that answers
with scripted completions, so the providers' real request, retry, parsing and fallback code runs
end to end.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from typing import Any

import pytest

from kg_brain.base.errors import ProviderError
from kg_brain.base.settings import Settings, load_settings
from kg_brain.base.vocab import LinkType
from kg_brain.enrichment.llm import HeuristicEnricher, LLMEnricher, build_enricher
from kg_brain.enrichment.llm import router as routing
from kg_brain.enrichment.llm.providers import (
    HuggingFaceProvider,
    OpenAICompatibleProvider,
    extract_json,
    outbound,
)
from kg_brain.enrichment.llm.types import Candidate, NoteDraft, SessionDigest
from tests.support.chat import ChatServer

FAST, HARD = "test/fast-model", "test/hard-model"
ENRICH_REPLY = {
    "title": "Pin httpx below 1.0",
    "context": "Avoids the transport API break in the 1.0 betas.",
    "keywords": ["httpx", "transport API", "HTTPX", "version pin", "1.0 beta"],
    "tags": ["Dependencies", "python"],
}


@pytest.fixture()
def server() -> Iterator[ChatServer]:
    srv = ChatServer()
    yield srv
    srv.close()


def make_settings(server: ChatServer, **extra: Any) -> Settings:
    values: dict[str, Any] = dict(
        llm_provider="openai", openai_base_url=f"{server.url}/v1", openai_api_key="test-key",
        fast_model_id=FAST, hard_model_id=HARD, llm_timeout_s=2.0, llm_max_retries=1,
    )
    values.update(extra)
    return load_settings(**values)


@pytest.fixture()
def router(server: ChatServer) -> LLMEnricher:
    settings = make_settings(server)
    enricher = build_enricher(settings)
    assert isinstance(enricher, LLMEnricher)
    return enricher


# --- reply parsing -----------------------------------------------------------------------------


def test_json_is_found_behind_think_blocks_fences_and_chatter() -> None:
    assert extract_json('<think>{"no": 1}</think>\n```json\n{"a": [1]}\n```\nDone!') == {"a": [1]}
    assert extract_json('reasoning...</think> Sure: {"b": 2} hope this helps') == {"b": 2}
    with pytest.raises(ValueError):
        extract_json("<think>only thoughts</think> no json here")


# --- routing -----------------------------------------------------------------------------------


def test_enrich_uses_the_fast_model_and_cleans_the_reply(
    router: LLMEnricher, server: ChatServer
) -> None:
    server.reply("<think>the user wants a note</think>\n```json\n" + json.dumps(ENRICH_REPLY)
                 + "\n```")
    result = router.enrich("httpx 1.0 betas changed the transport API.", "decision", "kg-brain")
    assert result.title == "Pin httpx below 1.0"
    assert result.keywords == ["httpx", "transport API", "version pin", "1.0 beta"]
    assert result.tags == ["decision", "dependencies", "python"]
    [request] = server.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["body"]["model"] == FAST
    assert request["auth"] == "Bearer test-key"
    assert router.name == f"openai:{FAST}"


def test_evolution_and_synthesis_use_the_hard_model(
    router: LLMEnricher, server: ChatServer
) -> None:
    server.reply({"context": "Superseded in practice by the ONLINE wait in bootstrap_schema."})
    server.reply({"title": "Wait for ONLINE indexes", "content": "Poll SHOW INDEXES.",
                  "context": "Merged.", "keywords": ["SHOW INDEXES"], "tags": ["neo4j"]})
    old = NoteDraft(title="Index not ready", content="queryNodes fails", context="Old.")
    new = NoteDraft(title="Poll SHOW INDEXES", content="Wait until ONLINE.", note_kind="fix")
    evolved = router.evolve_context(old, new, LinkType.FIXES)
    merged = router.synthesize([old, new])
    assert evolved == "Superseded in practice by the ONLINE wait in bootstrap_schema."
    assert merged.title == "Wait for ONLINE indexes"
    assert merged.tags[:2] == ["general", "neo4j"]
    assert [r["body"]["model"] for r in server.requests] == [HARD, HARD]


def test_unchanged_or_null_context_means_no_evolution(
    router: LLMEnricher, server: ChatServer
) -> None:
    old = NoteDraft(title="a", content="a", context="Keeps the lease safe.")
    server.reply({"context": None})
    server.reply({"context": "Keeps the lease safe."})
    assert router.evolve_context(old, old, LinkType.RELATES_TO) is None
    assert router.evolve_context(old, old, LinkType.RELATES_TO) is None


def test_link_replies_are_validated_against_candidates_and_link_types(
    router: LLMEnricher, server: ChatServer
) -> None:
    candidates = [
        Candidate(zk_id="ZK-aaaa0001", title="Mistake", content="x", note_kind="mistake",
                  similarity=0.82),
        Candidate(zk_id="ZK-aaaa0002", title="Other", content="y", note_kind="general",
                  similarity=0.61),
        Candidate(zk_id="ZK-aaaa0003", title="Far", content="z", note_kind="general",
                  similarity=0.2),
    ]
    server.reply({"links": [
        {"zk_id": "ZK-aaaa0001", "link_type": "fixes", "reason": "fixes it"},
        {"zk_id": "ZK-aaaa0001", "link_type": "RELATES_TO", "reason": "duplicate"},
        {"zk_id": "ZK-ffff9999", "link_type": "SUPPORTS", "reason": "invented id"},
        {"zk_id": "ZK-aaaa0002", "link_type": "INSPIRED_BY", "reason": "unknown type"},
    ]})
    note = NoteDraft(title="Fix", content="The fix.", note_kind="fix")
    links = router.decide_links(note, candidates)
    assert [(link.zk_id, link.link_type, link.weight) for link in links] == [
        ("ZK-aaaa0001", LinkType.FIXES, 0.82)
    ]
    offered = json.loads(server.requests[0]["body"]["messages"][1]["content"])["candidates"]
    assert [c["zk_id"] for c in offered] == ["ZK-aaaa0001", "ZK-aaaa0002"]  # floor applied


def test_split_atomic_uses_the_fast_model(router: LLMEnricher, server: ChatServer) -> None:
    server.reply(
        {"notes": ["The lease query filters on project.", " ", "Neo4j 5.26 needs Java 17."]}
    )
    assert router.split_atomic("long session text") == [
        "The lease query filters on project.", "Neo4j 5.26 needs Java 17."]
    assert server.requests[0]["body"]["model"] == FAST


# --- entities and kinds ------------------------------------------------------------------------


def test_enrich_returns_the_models_entities_with_canonical_keys_and_its_kind(
    router: LLMEnricher, server: ChatServer
) -> None:
    server.reply({**ENRICH_REPLY, "note_kind": "fix", "entities": [
        {"name": "the Payments Worker", "kind": "service"},
        {"name": "Postgres", "kind": "service"},
        {"name": "payment worker", "kind": "service"},
        {"name": "jitter", "kind": "a made-up kind"},
    ]})
    content = "The payments worker retried against Postgres; see worker/retry.py for jitter."
    result = router.enrich(content, "general", "shop")
    refs = [(e.key, e.kind.value) for e in result.entities]
    assert refs[:3] == [("payment worker", "service"), ("postgresql", "service"),
                        ("jitter", "phrase")]
    assert ("worker/retry.py", "file") in refs  # code-shaped, found offline
    assert result.note_kind == "fix"
    assert result.tags[0] == "fix"
    prompt = server.requests[0]["body"]["messages"][0]["content"]
    assert "entities" in prompt and "note_kind" in prompt


def test_a_given_kind_wins_and_an_unknown_one_is_inferred_offline(
    router: LLMEnricher, server: ChatServer
) -> None:
    server.reply({**ENRICH_REPLY, "note_kind": "fix"})
    server.reply({**ENRICH_REPLY, "note_kind": "anecdote"})
    assert router.enrich("Use httpx.", "decision", "p").note_kind == "decision"
    inferred = router.enrich("We decided to pin httpx below 1.0.", "general", "p")
    assert inferred.note_kind == "decision"
    assert {e.key for e in inferred.entities} == {"httpx"}  # the model named none


def test_link_decisions_see_the_entities_of_both_sides(
    router: LLMEnricher, server: ChatServer
) -> None:
    server.reply({"links": []})
    note = NoteDraft(title="t", content="The label printer service answers on port 9310.",
                     entities=["label printer service", "9310"])
    cand = Candidate(zk_id="ZK-aaaa0001", title="Port", content="The thumbnail worker answers "
                     "on port 9311.", note_kind="general", similarity=0.9)
    assert router.decide_links(note, [cand]) == []
    sent = json.loads(server.requests[0]["body"]["messages"][1]["content"])
    assert sent["new_note"]["entities"] == ["label printer service", "9310"]
    assert sent["candidates"][0]["entities"] == ["thumbnail worker", "9311"]


# --- failures ----------------------------------------------------------------------------------


def test_malformed_replies_are_retried_then_fall_back_to_the_heuristic(
    router: LLMEnricher, server: ChatServer, caplog: pytest.LogCaptureFixture
) -> None:
    server.reply("I cannot answer in JSON, sorry.")
    server.reply({"title": "", "keywords": "not a list"})
    content = "Always pin httpx below 1.0 because the betas changed the transport API."
    with caplog.at_level(logging.WARNING, logger="kg_brain.enrichment.llm.router"):
        result = router.enrich(content, "decision", "kg-brain")
    assert len(server.requests) == 2  # llm_max_retries=1: one retry
    assert result.title == "Always pin httpx below 1.0 because the betas changed the transport API"
    assert result.context.startswith("Records the decision")
    assert {e.key for e in result.entities} == {"httpx"}
    assert any("enrich failed" in r.getMessage() for r in caplog.records)


def test_failed_link_decisions_fall_back_to_the_rules(
    router: LLMEnricher, server: ChatServer
) -> None:
    server.reply("no json", status=503)
    server.reply("no json", status=503)
    note = NoteDraft(title="t", content="The inventory sync's migrations run with Alembic 1.13.")
    cand = Candidate(zk_id="ZK-aaaa0001", title="m", content="The payment worker's migrations "
                     "run with Alembic 1.13.", note_kind="general", similarity=0.95)
    assert router.decide_links(note, [cand]) == []  # another service: no link


def test_server_errors_are_retried(router: LLMEnricher, server: ChatServer) -> None:
    server.reply("overloaded", status=503)
    server.reply({"notes": ["Statement one is here."]})
    assert router.split_atomic("Statement one is here.") == ["Statement one is here."]
    assert len(server.requests) == 2


def test_client_errors_are_not_retried(server: ChatServer) -> None:
    provider = OpenAICompatibleProvider(make_settings(server, llm_max_retries=3))
    server.reply("bad key", status=401)
    with pytest.raises(ProviderError, match="401"):
        provider.complete("fast", "system", "user", NoteDraft)
    assert len(server.requests) == 1


def test_a_slow_endpoint_times_out_into_the_fallback(server: ChatServer) -> None:
    settings = make_settings(server, llm_timeout_s=0.3, llm_max_retries=0)
    enricher = build_enricher(settings)
    server.reply({"notes": ["late"]}, delay=1.0)
    started = time.monotonic()
    assert enricher.split_atomic("Use uv for installs. It is faster than pip.") == [
        "Use uv for installs. It is faster than pip."]
    assert time.monotonic() - started < 0.9


# --- Hugging Face provider and the factory -----------------------------------------------------


def test_huggingface_provider_speaks_chat_completion(
    server: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from huggingface_hub import constants

    # Loading the embedder (elsewhere in the run) sets HF_HUB_OFFLINE, which huggingface_hub
    # applies to every request.
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    settings = make_settings(server, llm_provider="huggingface", HUGGINGFACE_API_KEY="hf-test")
    provider = HuggingFaceProvider(settings, base_url=server.url)
    enricher = LLMEnricher(provider, HeuristicEnricher())
    server.reply("<think>\nplan\n</think>" + json.dumps(ENRICH_REPLY))
    result = enricher.enrich("httpx 1.0 betas changed the transport API.", "decision", "p")
    assert result.title == "Pin httpx below 1.0"
    assert server.requests[0]["path"].endswith("/chat/completions")
    assert server.requests[0]["body"]["model"] == FAST
    assert enricher.name == f"huggingface:{FAST}"


def test_factory_falls_back_to_the_heuristic_without_credentials(server: ChatServer) -> None:
    heuristic = load_settings(llm_provider="heuristic", openai_base_url=server.url)
    no_url = load_settings(llm_provider="openai", openai_base_url=None)
    no_key = load_settings(llm_provider="huggingface", HUGGINGFACE_API_KEY=None)
    for settings in (heuristic, no_url, no_key):
        assert build_enricher(settings).name == "heuristic"
    with_key = load_settings(llm_provider="huggingface", HUGGINGFACE_API_KEY="hf-test",
                             fast_model_id=FAST)
    assert build_enricher(with_key).name == f"huggingface:{FAST}"


# --- what leaves the process -------------------------------------------------------------------


def test_prompts_and_clean_documents_leave_unchanged_and_secrets_do_not() -> None:
    prompts = [routing.ENRICH_PROMPT, routing.LINKS_PROMPT, routing.SYNTHESIZE_PROMPT,
               routing.SPLIT_PROMPT, routing.SESSION_PROMPT,
               routing.EVOLVE_PROMPT.format(limit=600)]
    assert all(outbound(p) == p for p in prompts)
    clean = json.dumps({"notes": [{"title": "Pin httpx", "content": "Use httpx<1.0."}]})
    assert outbound(clean) == clean
    key = "ghp_" + "Zq8Lw3Rt6Yp1Ks4Df7Gh0Jk2Mn5Bv9Cx3Az6E"
    sent = outbound(json.dumps({"requests": [f'token "{key}"', "mysql -pS3cr3t!x"]}))
    assert json.loads(sent) == {"requests": ['token "[REDACTED:github_token]"',
                                             "mysql -p[REDACTED:password]"]}


def test_a_long_session_record_goes_whole_newest_items_kept(
        router: LLMEnricher, server: ChatServer) -> None:
    requests = [f"request {i}: " + "a" * 280 for i in range(30)]
    extract = SessionDigest(objective=requests[0], completed=[f"ran step {i}" for i in range(60)],
                            blockers=[], next_steps=["ship it"])
    assert router.summarize_session(extract, requests) == extract  # the endpoint failed
    sent = server.requests[0]["body"]["messages"][1]["content"]
    record = json.loads(sent)  # a whole document, no value cut in two
    assert len(sent) <= routing.CONTENT_CHARS
    assert record["requests"][-1] == requests[-1] and record["extract"]["next_steps"] == ["ship it"]
