"""No secret leaves the process or reaches the store, on any path (issue 39, item 1).

An LLM is configured against a small OpenAI-compatible endpoint on 127.0.0.1 that records every
request body (tests/support/chat.py; it answers 500, so each operation also falls back to the
heuristic and the write goes on). Secrets in the issue's forms go through every operation the
router has, given raw text as a caller that forgot to redact would, through a provider called
directly, and through every write path: the MCP tools, the plugin's HTTP endpoints (whose close
sent the user's raw requests to the model before), evolution and consolidation. None may appear
in any request to the model or in anything stored for the project. Real Neo4j, real embedder.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp import FastMCP
from starlette.applications import Starlette
from starlette.routing import Route
from starlette.testclient import TestClient

from kg_brain.base.errors import ProviderError
from kg_brain.base.vocab import LinkType
from kg_brain.enrichment.embed import SentenceTransformerEmbedder
from kg_brain.enrichment.llm import LLMEnricher, NoteDraft, SessionDigest
from kg_brain.enrichment.llm.providers import OpenAICompatibleProvider, _BaseProvider
from kg_brain.enrichment.llm.router import (
    ENRICH_PROMPT,
    LINKS_PROMPT,
    SESSION_PROMPT,
    SPLIT_PROMPT,
    SYNTHESIZE_PROMPT,
)
from kg_brain.enrichment.llm.types import Candidate
from kg_brain.root.app import Brain
from kg_brain.store.db import Database
from kg_brain.surfaces.plugin_api import PLUGIN_PATH, PluginActions, route
from kg_brain.surfaces.tools import BrainTools, build_server
from tests.mcp.test_secrets_on_write import stored_text
from tests.support.brains import make_settings
from tests.support.chat import ChatServer
from tests.support.mcp import call

AWS = "AKIA" + "R7PZK2QW5NBX3LTM"
GH = "ghp_" + "Vb7Kq2Lm9Xw4Rt8Zp3Nc6Hd1Jy5Sf0Ag2Ue4"
MYSQL = "Lichen-Wharf-83"
REDIS = "Plaza7!Gecko"
HTPASSWD = "Tern&Harbour5"
PAIR = "qu1nce.Meadow"
GPG = "Saltmarsh-Owl-27"
TELEGRAM = "7230981145:AA" + "Gk2Lw9Xq3Nz7Rt5Vb1Mc8Hd4Jp6Sg0Ye2"
MAVEN = "Ferry!Lark904"
HOOK = "k3j9x2m7q4w8e1r5t6y0u2i9o3"
DSN = base64.b64encode(b"postgres://ledger:Quokka-Lime-62@db.internal:5432/ledger").decode()
SECRETS = [AWS, GH, MYSQL, REDIS, HTPASSWD, PAIR, GPG, TELEGRAM, MAVEN, HOOK, DSN]
TEXTS = [
    f"CI exports AWS_ACCESS_KEY_ID={AWS} before the deploy",
    f"git push https://{GH}@github.com/acme/web.git HEAD:main",
    f"mysql -u root -p{MYSQL} -h db01 shop",
    f"redis-cli -h queue-redis -a {REDIS} LLEN jobs",
    f"htpasswd -nbB metrics {HTPASSWD} >> auth/htpasswd",
    f"the kibana UI: sign in with analyst / {PAIR}",
    f"echo '{GPG}' | gpg --batch --passphrase-fd 0 -d vault.gpg",
    f"curl https://api.telegram.org/bot{TELEGRAM}/getMe",
    f"<server>\n  <id>nexus</id>\n  <password>{MAVEN}</password>\n</server>",
    f"POST https://chat.example.org/hooks/{HOOK}",
    f"kind: Secret\ndata:\n  db-url: {DSN}",  # on one line it no longer reads as a manifest
]
ALL = "\n".join(TEXTS)


@pytest.fixture()
def chat() -> Iterator[ChatServer]:
    server = ChatServer()
    yield server
    server.close()


@pytest.fixture()
def llm_brain(db: Database, embedder: SentenceTransformerEmbedder, chat: ChatServer,
              project: str) -> Brain:
    return Brain(make_settings(kg_brain_project=project, llm_provider="openai",
                               openai_base_url=f"{chat.url}/v1", llm_max_retries=0,
                               llm_timeout_s=5.0), db=db, embedder=embedder)


def sent(chat: ChatServer) -> list[str]:
    """Every message sent to the model, and every string of the JSON documents among them."""
    texts: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            texts.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for request in chat.requests:
        for message in request["body"]["messages"]:
            walk(message["content"])
            try:
                walk(json.loads(message["content"]))
            except ValueError:
                pass
    return texts


def assert_nothing_sent(chat: ChatServer, prompts: set[str]) -> None:
    texts = sent(chat)
    systems = {r["body"]["messages"][0]["content"] for r in chat.requests}
    assert prompts <= systems, prompts - systems
    leaked = [s for s in SECRETS if any(s in text for text in texts)]
    assert not leaked, f"sent to the model: {leaked}"


def test_every_model_operation_hides_secrets_its_caller_left_in(
        llm_brain: Brain, chat: ChatServer, project: str) -> None:
    enricher = llm_brain.deps.enricher
    assert isinstance(enricher, LLMEnricher)
    note = NoteDraft(title=TEXTS[0], content=ALL, context=TEXTS[1], note_kind="general")
    other = Candidate(zk_id="ZK-0000beef", title=TEXTS[2], content=ALL, note_kind="general",
                      similarity=0.9)
    enricher.enrich(ALL, "general", project)
    enricher.decide_links(note, [other])
    enricher.evolve_context(note, note, LinkType.EXTENDS)
    enricher.synthesize([note, note])
    enricher.split_atomic(ALL)
    enricher.summarize_session(SessionDigest(objective=TEXTS[0], completed=TEXTS, blockers=[],
                                            next_steps=TEXTS[-2:]), TEXTS * 3)
    provider = OpenAICompatibleProvider(llm_brain.settings)  # a caller added later
    with pytest.raises(ProviderError):
        provider.complete("fast", ALL, json.dumps({"notes": TEXTS}), NoteDraft)
    assert len(chat.requests) == 7
    assert_nothing_sent(chat, {ENRICH_PROMPT, LINKS_PROMPT, SYNTHESIZE_PROMPT, SPLIT_PROMPT,
                               SESSION_PROMPT})


def test_the_provider_layer_is_the_one_way_out() -> None:
    """Every provider inherits the redacting `complete`; none sends by another method."""
    providers = _BaseProvider.__subclasses__()
    assert providers and all("complete" not in vars(p) for p in providers)


def plugin(brain: Brain) -> TestClient:
    """The plugin's endpoint as the service mounts it (kg_brain/surfaces/plugin_api.py route)."""
    handler = route(PluginActions(BrainTools(brain)))
    return TestClient(Starlette(routes=[Route(PLUGIN_PATH, handler, methods=["POST"])]))


def post(client: TestClient, action: str, folder: Path, **body: Any) -> dict[str, Any]:
    reply = client.post(f"/plugin/{action}", json={"directory": str(folder), **body})
    assert reply.status_code == 200, reply.text
    return dict(reply.json())


def failing_output() -> str:
    """2,000 characters of output whose first line the plugin's cut splits after `-p`: the
    password alone opens what is kept, and alone it reads as nothing."""
    tail = (f"{MYSQL} -h db01 shop\nERROR 1045 (28000): Access denied for user 'root'@'10.0.0.5'"
            "\n")
    filler = "".join(f"retry {i}: waiting for db01\n" for i in range(200))
    kept = (tail + filler)[:2_000]
    return "$ mysql -u root -p" + kept


def test_no_secret_reaches_the_model_or_the_store_on_any_write_path(
        llm_brain: Brain, chat: ChatServer, project: str, tmp_path: Path) -> None:
    server: FastMCP = build_server(llm_brain)
    first = call(server, "add_memory", content="The search indexer retries failed OpenSearch "
                 f"bulk writes three times with jitter. {TEXTS[0]}")["zk_id"]
    second = call(server, "add_memory", content="The search indexer parks failed OpenSearch "
                  f"bulk writes after three retries; parked writes are replayed. {TEXTS[1]}")
    assert second["evolution_queued"]
    llm_brain.evolution.process(project=project)
    call(server, "edit_note", zk_id=first, title=TEXTS[10], tags=["billing", GH])
    call(server, "update_memory", zk_id=first, new_content=ALL)
    call(server, "link_notes", from_zk_id=first, to_zk_id=second["zk_id"], type="RELATES_TO",
         reason=TEXTS[3])
    clusters = call(server, "consolidate_clusters", dry_run=True)["clusters"]
    call(server, "consolidate_clusters", dry_run=False,
         selected_cluster_ids=[c["cluster_id"] for c in clusters])
    doomed = call(server, "add_memory", content=f"Scratch note about the kibana UI. {TEXTS[5]}")
    call(server, "forget_note", zk_ids=[doomed["zk_id"]], reason=TEXTS[4])
    failure = call(server, "record_failure", content=f"deploy broke: {TEXTS[2]}",
                   failure_signature=TEXTS[2])
    call(server, "record_resolution", failure_zk_id=failure["zk_id"],
         fix_content=f"rotated it; {TEXTS[6]}")
    call(server, "close_session", objective=TEXTS[7], completed=TEXTS[:4], blockers=[TEXTS[8]],
         next_steps=[TEXTS[9]], key_files=[".env"])
    call(server, "capture_context", text=ALL)

    folder = tmp_path / project
    client = plugin(llm_brain)
    session = {"session_id": f"ses_{project}"}
    post(client, "failure", folder, command=TEXTS[3], output=failing_output(), exit=1,
         key=TEXTS[3], requests=TEXTS, events=[f"ran `{TEXTS[3]}` (exit 1)"], **session)
    post(client, "passed", folder, command=TEXTS[3], key=TEXTS[3], edited=["deploy.sh"],
         events=[TEXTS[6], f"ran `{TEXTS[3]}` (exit 0)"], **session)
    post(client, "remember", folder, text=ALL)
    post(client, "close", folder, events=TEXTS[2:5], **session)

    assert_nothing_sent(chat, {ENRICH_PROMPT, LINKS_PROMPT, SYNTHESIZE_PROMPT, SPLIT_PROMPT,
                               SESSION_PROMPT})
    assert any(r["body"]["messages"][0]["content"].startswith("A new note was just linked")
               for r in chat.requests)  # evolution asked the model too
    stored = stored_text(llm_brain, project)
    leaked = [s for s in [*SECRETS, GH.lower()] if s in stored]
    assert not leaked, f"stored: {leaked}"


def test_a_secret_in_an_imported_note_reaches_neither_the_store_nor_the_model(
        llm_brain: Brain, chat: ChatServer, project: str) -> None:
    """The import redacts each text once (the write gate passes what it redacted unread):
    secrets in the content, and in a record's own title, context, keywords and tags, are
    stored hidden, and promoting the notes sends the model none."""
    records: list[dict[str, Any]] = [
        {"content": text, "project": project, "memory_type": "fleeting"} for text in TEXTS]
    records.append({"content": "The search indexer retries failed bulk writes three times.",
                    "project": project, "memory_type": "fleeting", "title": TEXTS[1],
                    "context": TEXTS[0], "keywords": [GH, "indexer"], "tags": [AWS]})
    ids = llm_brain.importer.add_many(records, batch_size=4)
    for zk_id in ids:
        llm_brain.writer.distill(zk_id)
    assert_nothing_sent(chat, {ENRICH_PROMPT})
    stored = stored_text(llm_brain, project)
    leaked = [s for s in [*SECRETS, GH.lower()] if s in stored]
    assert not leaked, f"stored: {leaked}"
