"""Best-effort Obsidian mirror: each note as `<subfolder>/zk/ZK-XXXXXXXX.md` in a vault.

Off the request path: every write transaction records a durable `Job {kind: 'mirror'}` per
note it changed (`Mirror.recorder`, wired into the database by the composition root, so a note
written and its neighbours whose backlinks changed are queued by the very transaction that
changed them), and the scheduler's `Mirror.drain` renders the note's
current state and writes it to every configured target: the Local REST API plugin
(OBSIDIAN_API_KEY, OBSIDIAN_HOST) and/or a vault folder on disk (OBSIDIAN_VAULT_PATH). A note
that no longer exists has its file removed. Failing targets are retried with backoff.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path, PurePosixPath
from typing import Any, Protocol
from urllib.parse import quote

import httpx

from kg_brain.base import validate
from kg_brain.base.clock import Clock
from kg_brain.base.errors import BrainError, InvalidInput
from kg_brain.base.settings import Settings
from kg_brain.shapes.models import iso
from kg_brain.store import jobs, notes, views
from kg_brain.store.db import ChangeHook, Database, Tx
from kg_brain.store.jobs import ClaimedJob

log = logging.getLogger(__name__)
MAX_ATTEMPTS = 5
FRONT_ORDER = ("zk_id", "title", "project", "note_kind", "memory_type", "pinned", "created",
               "updated", "last_accessed", "access_count", "failure_signature", "archived_at",
               "archive_reason", "keywords", "tags", "context")
_LINK_UNSAFE = str.maketrans({c: " " for c in "[]|#^\n\r"})


# --- paths -----------------------------------------------------------------------------------
def note_path(subfolder: str, zk_id: str) -> PurePosixPath:
    """`<subfolder>/zk/ZK-XXXXXXXX.md`; refuses anything that could leave the vault."""
    parts = PurePosixPath(subfolder.replace("\\", "/")).parts if subfolder.strip() else ()
    if any(p in ("", ".", "..", "/") or ":" in p for p in parts):
        raise InvalidInput(f"OBSIDIAN_VAULT_SUBFOLDER {subfolder!r} must be a relative folder")
    return PurePosixPath(*parts, "zk", f"{validate.zk_id(zk_id)}.md")


# --- rendering -------------------------------------------------------------------------------
def _yaml_scalar(value: Any) -> str:
    """JSON scalars are valid YAML flow scalars (quoted strings, numbers, true/false/null)."""
    return json.dumps(value, ensure_ascii=False)


def _yaml(key: str, value: Any, indent: str = "") -> list[str]:
    if isinstance(value, dict):
        lines = [f"{indent}{key}:"] if value else [f"{indent}{key}: {{}}"]
        for k, v in value.items():
            lines += _yaml(k, v, indent + "  ")
        return lines
    if isinstance(value, list):
        if not value:
            return [f"{indent}{key}: []"]
        return [f"{indent}{key}:"] + [f"{indent}  - {_yaml_scalar(v)}" for v in value]
    return [f"{indent}{key}: {_yaml_scalar(value)}"]


def _wikilink(zk_id: str, title: str) -> str:
    alias = " ".join(title.translate(_LINK_UNSAFE).split())
    return f"[[{zk_id}|{alias}]]" if alias else f"[[{zk_id}]]"


def render_note(note: dict[str, Any], links: list[dict[str, Any]]) -> str:
    """Markdown with YAML frontmatter (every property but the embedding; content is the body)
    and the typed links as wikilinks grouped by relationship type."""
    props = {k: (iso(v) if hasattr(v, "iso_format") or isinstance(v, datetime) else v)
             for k, v in note.items() if k not in ("embedding", "content") and v is not None}
    ordered = {k: props.pop(k) for k in FRONT_ORDER if k in props} | dict(sorted(props.items()))
    out_links: dict[str, list[str]] = {}
    in_links: dict[str, list[str]] = {}
    for link in sorted(links, key=lambda x: (x["type"], x["zk_id"])):
        bucket = out_links if link["direction"] == "out" else in_links
        bucket.setdefault(link["type"], []).append(_wikilink(link["zk_id"], link.get("title", "")))
    ordered["links"] = out_links
    lines = ["---", *[ln for k, v in ordered.items() for ln in _yaml(k, v)], "---", ""]
    lines += [f"# {note.get('title') or note['zk_id']}", "", note["content"].strip(), ""]
    if note.get("context"):
        lines += ["## Context", "", note["context"].strip(), ""]
    for heading, groups in (("Links", out_links), ("Linked from", in_links)):
        if groups:
            lines += [f"## {heading}", ""]
            for link_type, targets in groups.items():
                lines += [f"- {link_type}: " + ", ".join(targets)]
            lines.append("")
    return "\n".join(lines)


# --- targets ---------------------------------------------------------------------------------
class Target(Protocol):
    name: str

    def put(self, path: PurePosixPath, text: str) -> None: ...

    def delete(self, path: PurePosixPath) -> None: ...


class VaultFolder:
    """Writes straight into a vault folder; atomic replace, and never outside the vault."""

    name = "vault"

    def __init__(self, root: Path) -> None:
        self.root = root.expanduser().resolve()

    def _resolve(self, path: PurePosixPath) -> Path:
        target = (self.root / path).resolve()
        if not target.is_relative_to(self.root):
            raise InvalidInput(f"{path} resolves outside the vault {self.root}")
        return target

    def put(self, path: PurePosixPath, text: str) -> None:
        target = self._resolve(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".kg-brain-", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def delete(self, path: PurePosixPath) -> None:
        self._resolve(path).unlink(missing_ok=True)


class RestApi:
    """The Obsidian Local REST API plugin: PUT/DELETE /vault/<path> with a bearer key."""

    name = "rest"

    def __init__(self, host: str, api_key: str, timeout_s: float = 10.0,
                 client: httpx.Client | None = None) -> None:
        self.base = host.rstrip("/")
        self.timeout_s = timeout_s
        self._client = client
        self.headers = {"Authorization": f"Bearer {api_key}"}

    @property
    def client(self) -> httpx.Client:
        if self._client is None:  # only workers that write need a connection pool
            self._client = httpx.Client(timeout=self.timeout_s)
        return self._client

    def _url(self, path: PurePosixPath) -> str:
        return f"{self.base}/vault/{quote(str(path), safe='/')}"

    def put(self, path: PurePosixPath, text: str) -> None:
        response = self.client.put(self._url(path), content=text.encode("utf-8"),
                                   headers={**self.headers, "Content-Type": "text/markdown"})
        response.raise_for_status()

    def delete(self, path: PurePosixPath) -> None:
        response = self.client.delete(self._url(path), headers=self.headers)
        if response.status_code != 404:
            response.raise_for_status()


def targets_from(settings: Settings) -> list[Target]:
    targets: list[Target] = []
    if settings.obsidian_api_key:
        targets.append(RestApi(settings.obsidian_host, settings.obsidian_api_key))
    if settings.obsidian_vault_path:
        targets.append(VaultFolder(settings.obsidian_vault_path))
    return targets


# --- the queue -------------------------------------------------------------------------------
class Mirror:
    def __init__(self, settings: Settings, db: Database, clock: Clock,
                 targets: Sequence[Target] | None = None) -> None:
        self.settings = settings
        self.db = db
        self.clock = clock
        self.targets = list(targets_from(settings) if targets is None else targets)
        self.worker = jobs.worker_name()

    @staticmethod
    def configured(settings: Settings) -> bool:
        return bool(settings.obsidian_api_key or settings.obsidian_vault_path)

    @staticmethod
    def recorder(clock: Clock) -> ChangeHook:
        """The write transactions' hook: queue the notes they changed, in the same transaction
        (but those a statement queued itself: `Tx.mirrored`)."""
        def record(tx: Tx, zk_ids: list[str]) -> None:
            left = [z for z in zk_ids if z not in tx.mirrored]
            if left:
                views.enqueue_mirror_jobs(tx, zk_ids=left, now=clock())

        return record

    @property
    def enabled(self) -> bool:
        return bool(self.targets)

    def drain(self, limit: int = 50, project: str | None = None) -> int:
        """Render and write up to `limit` queued notes (of one project if given); returns how
        many were mirrored."""
        if not self.enabled:
            return 0
        now = self.clock()
        claimed = jobs.claim(self.db, kind="mirror", project=project, now=now,
                             until=now + timedelta(minutes=2), limit=limit, worker=self.worker)
        return sum(self._run(job) for job in claimed)

    def _run(self, job: ClaimedJob) -> int:
        state, error, retry_at = "done", None, None
        try:
            self.sync([job["zk_id"]])
        except InvalidInput as exc:
            state, error = "failed", str(exc)
        except (httpx.HTTPError, OSError, BrainError) as exc:
            attempts = int(job["attempts"])
            failed = attempts >= MAX_ATTEMPTS
            state, error = ("failed" if failed else "pending"), f"{type(exc).__name__}: {exc}"
            retry_at = None if failed else self.clock() + timedelta(seconds=30 * 2 ** attempts)
            log.warning("obsidian mirror of %s failed (attempt %s): %s", job["zk_id"],
                        job["attempts"], error)
        views.finish_mirror_job(self.db, key=job["key"], now=self.clock(), state=state,
                                retry_at=retry_at, error=error)
        return int(state == "done")

    def sync(self, zk_ids: Sequence[str]) -> int:
        """Write the current state of these notes to every target now (files of notes that no
        longer exist are removed); raises on the first failing target."""
        ids = [validate.zk_id(z) for z in zk_ids]
        rows = {r["note"]["zk_id"]: r for r in notes.get_notes(self.db, zk_ids=ids)}
        for zk_id in ids:
            path = note_path(self.settings.obsidian_vault_subfolder, zk_id)
            row = rows.get(zk_id)
            for target in self.targets:
                if row is None:
                    target.delete(path)
                else:
                    target.put(path, render_note(row["note"], row["links"]))
        return len(ids)
