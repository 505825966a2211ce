"""Secrets on write, end to end through the tools: every write path redacts credentials before
anything is stored (content, title, context, keywords, tags, signatures, revisions, link
reasons, tags, tombstones, imported records), says what it removed, leaves ordinary code notes
byte-identical, and refuses them outright when SECRETS_MODE=reject."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from fastmcp import FastMCP
from fastmcp.exceptions import ToolError

from bench import store
from kg_brain.base.errors import InvalidInput
from kg_brain.enrichment.embed import Embedder
from kg_brain.root.app import Brain
from kg_brain.store.db import Database
from kg_brain.surfaces.tools import build_server
from tests.support.brains import make_settings
from tests.support.mcp import call
from tests.unit.test_redact import ORDINARY, PEM, SECRETS

AWS = "AKIA" + "Q3EGRT7BZXY6N5WM"
DSN_PASSWORD = "Tr0ub4dor-" + "x9q"
DSN = f"postgres://deploy:{DSN_PASSWORD}@db.internal:5432/app"
GH = "ghp_" + "7kQ2mZ9xR4tL8vN3pW6yB1cD5fG0hJ2sK4aE"


def stored_text(brain: Brain, project: str) -> str:
    """All string values stored for the project, one per line."""
    values: list[str] = []
    for row in store.project_text(brain.db, project=project):
        for value in row["props"].values():
            values += value if isinstance(value, list) else [value]
    return "\n".join(v for v in values if isinstance(v, str))


def assert_clean(brain: Brain, project: str, secrets: list[str]) -> None:
    text = stored_text(brain, project)
    leaked = [s for s in secrets if s in text]
    assert not leaked, f"stored: {leaked}"


def test_add_memory_redacts_the_corpus_and_keeps_ordinary_notes(
        brain: Brain, server: FastMCP, project: str) -> None:
    for text, _secret, kind in SECRETS:
        saved = call(server, "add_memory", content=f"Found while debugging: {text}")
        assert kind in saved["redacted"], text
    for number, text in enumerate(ORDINARY):  # each alone: dedup is not what is tested here
        saved = call(server, "add_memory", content=text, memory_type="fleeting",
                     project=f"{project}-{number}")
        assert saved["redacted"] == [] and not saved["deduplicated"], text
        stored = call(server, "recall", zk_ids=[saved["zk_id"]])["notes"][0]["content"]
        assert stored == text.strip()
    assert_clean(brain, project, [secret for _t, secret, _k in SECRETS])


def test_update_memory_redacts_and_the_revision_holds_no_secret(
        brain: Brain, server: FastMCP, project: str) -> None:
    zk_id = call(server, "add_memory", content="Staging database reachable from CI only.")["zk_id"]
    saved = call(server, "update_memory", zk_id=zk_id,
                 new_content=f"Staging database: {DSN}; CI key {AWS}.")
    assert set(saved["redacted"]) == {"password", "aws_access_key"}
    call(server, "update_memory", zk_id=zk_id, new_content="Staging database via the vault.")
    assert_clean(brain, project, [DSN_PASSWORD, AWS])


def test_capture_context_redacts_secrets_spanning_statements(
        brain: Brain, server: FastMCP, project: str) -> None:
    text = (f"We rotated the deploy key today.\n{PEM}\nThe old token {GH} is revoked. "
            f"Migrations run against {DSN} from the runner.")
    assert call(server, "capture_context", text=text)["notes"]
    assert_clean(brain, project, ["MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn", "Yp0VJ2d1Sdp3ZKp7cXQk9S3j",
                                  GH, DSN_PASSWORD])


def test_failure_and_resolution_redact_content_and_signature(
        brain: Brain, server: FastMCP, project: str) -> None:
    error = f"psycopg.OperationalError: connection to {DSN} failed: password authentication"
    failure = call(server, "record_failure", content=f"Deploy broke. {error}",
                   failure_signature=error)
    assert DSN_PASSWORD not in failure["failure_signature"]
    call(server, "record_resolution", failure_zk_id=failure["zk_id"],
         fix_content=f"Reset the role password; the runner now uses {GH} only for checkout.")
    assert_clean(brain, project, [DSN_PASSWORD, GH])


def test_close_session_redacts_titles_and_sections(brain: Brain, server: FastMCP,
                                                   project: str) -> None:
    call(server, "close_session", objective=f"Rotate {AWS} out of CI",
         completed=[f"Moved {DSN} into the vault"], blockers=[],
         next_steps=[f"Revoke {GH}"], key_files=[".env"])
    assert_clean(brain, project, [AWS, DSN_PASSWORD, GH])


def test_reject_mode_refuses_secrets_and_writes_nothing(brain: Brain, project: str) -> None:
    strict = build_server(Brain(make_settings(kg_brain_project=project, secrets_mode="reject"),
                                db=brain.db, embedder=brain.embedder))
    attempts: list[tuple[str, dict[str, Any]]] = [
        ("add_memory", {"content": f"CI key {AWS}"}),
        ("capture_context", {"text": f"First fact here. Second fact uses {DSN}."}),
        ("record_failure", {"content": f"auth failed for {DSN}"}),
        ("close_session", {"objective": f"Rotate {GH}", "completed": [], "blockers": [],
                           "next_steps": []}),
    ]
    for tool, args in attempts:
        with pytest.raises(ToolError, match="contains secrets"):
            call(strict, tool, **args)
    assert store.project_footprint(brain.db, project=project)["notes"] == 0


def test_curation_paths_redact_and_say_what_they_hid(brain: Brain, server: FastMCP,
                                                      project: str) -> None:
    first = call(server, "add_memory", content="The billing worker retries webhooks twice.")
    second = call(server, "add_memory", content="Webhook retries back off exponentially.")
    edited = call(server, "edit_note", zk_id=first["zk_id"], title=f"Billing key {AWS}",
                  tags=["billing", GH])
    assert set(edited["redacted"]) == {"aws_access_key", "github_token"}
    assert AWS not in edited["title"] and all(GH.lower() not in t for t in edited["tags"])
    linked = call(server, "link_notes", from_zk_id=first["zk_id"], to_zk_id=second["zk_id"],
                  type="RELATES_TO", reason=f"both hit {DSN}")
    assert linked["redacted"] == ["password"]
    forgot = call(server, "forget_note", zk_ids=[second["zk_id"]],
                  reason=f"held the deploy token {GH}")
    assert forgot["redacted"] == ["github_token"]
    assert_clean(brain, project, [AWS, GH, GH.lower(), DSN_PASSWORD])


def test_bulk_import_redacts_every_field(brain: Brain, project: str) -> None:
    brain.importer.add_many([{"project": project, "content": "Deploys go through the runner.",
                              "title": f"Runner token {GH}", "context": f"uses {DSN}",
                              "keywords": [AWS], "tags": [f"key-{AWS}"]}])
    assert_clean(brain, project, [AWS, GH, DSN_PASSWORD])


def test_reject_mode_refuses_secrets_on_curation_and_import(brain: Brain, project: str) -> None:
    strict_brain = Brain(make_settings(kg_brain_project=project, secrets_mode="reject"),
                         db=brain.db, embedder=brain.embedder)
    strict = build_server(strict_brain)
    first = call(strict, "add_memory", content="The billing worker retries webhooks twice.")
    second = call(strict, "add_memory", content="Webhook retries back off exponentially.")
    attempts: list[tuple[str, dict[str, Any]]] = [
        ("edit_note", {"zk_id": first["zk_id"], "title": f"Billing key {AWS}"}),
        ("edit_note", {"zk_id": first["zk_id"], "tags": [GH]}),
        ("link_notes", {"from_zk_id": first["zk_id"], "to_zk_id": second["zk_id"],
                        "type": "RELATES_TO", "reason": f"both hit {DSN}"}),
        ("forget_note", {"zk_ids": [second["zk_id"]], "reason": f"held {GH}"}),
    ]
    for tool, args in attempts:
        with pytest.raises(ToolError, match="contains secrets"):
            call(strict, tool, **args)
    with pytest.raises(InvalidInput, match="contains secrets"):
        strict_brain.importer.add_many([{"project": project, "content": "Runner notes.",
                                         "title": f"Runner token {GH}"}])
    assert store.project_footprint(brain.db, project=project)["notes"] == 2
    assert_clean(brain, project, [AWS, GH, DSN_PASSWORD])


def test_nothing_hidden_reaches_the_logs(brain: Brain, server: FastMCP, project: str,
                                         caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    saved = call(server, "add_memory", content=f"CI uses {AWS} and {DSN} for the deploy.")
    call(server, "edit_note", zk_id=saved["zk_id"], title=f"Deploy with {GH}")
    strict = build_server(Brain(make_settings(kg_brain_project=project, secrets_mode="reject"),
                                db=brain.db, embedder=brain.embedder))
    with pytest.raises(ToolError):
        call(strict, "add_memory", content=f"CI key {AWS}")
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert caplog.records and not [s for s in (AWS, GH, DSN_PASSWORD) if s in logged]


def test_hard_forget_removes_the_title_from_every_copy(db: Database, embedder: Embedder,
                                                        project: str, tmp_path: Path) -> None:
    brain = Brain(make_settings(kg_brain_project=project, obsidian_vault_path=tmp_path,
                                obsidian_vault_subfolder="brain"), db=db, embedder=embedder)
    server = build_server(brain)
    first = call(server, "add_memory", content="The label service asks the carrier API twice "
                 "for each shipping label before queueing it.")["zk_id"]
    second = call(server, "add_memory", content="The label service queues a shipping label when "
                  "the carrier API fails twice; queued labels are retried from the admin page.")
    assert second["evolution_queued"]
    brain.evolution.process(project=project)
    title = second["title"]
    call(server, "update_memory", zk_id=first,  # a revision now keeps the evolved context
         new_content="The label service asks the carrier API four times per label.")
    assert title in stored_text(brain, project)
    brain.mirror.drain()
    call(server, "forget_note", zk_ids=[second["zk_id"]], reason="pasted a secret", hard=True)
    brain.mirror.sync([first, second["zk_id"]])  # not drain: the job queue is the server's,
    # shared with other tests' mirrors, which may claim these jobs first
    assert title not in stored_text(brain, project)
    mirrored = "\n".join(p.read_text(encoding="utf-8") for p in tmp_path.rglob("*.md"))
    assert first in mirrored and title not in mirrored
