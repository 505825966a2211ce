"""The write gate: every write statement's text parameters pass the redaction gate on their way
to Neo4j, whatever service called them; only validated identifiers and numbers are let through
(a search is a read: its query never meets the gate).

Each write statement of the store is run through the real `Tx.run` on a recording transaction
(no server: what is checked is what would be sent), with a secret in every parameter and in
every field of its rows; a statement whose text reached the driver unredacted fails the test.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

import kg_brain
from kg_brain.base.errors import InvalidInput
from kg_brain.store.db import Tx
from kg_brain.store.statement import Statement
from kg_brain.text.redact.gate import IDENTIFIERS, Redacted, gate, hide
from tests.support.statements import body, bound_statements

SECRET = "ghp_" + "Zq8Lw3Rt6Yp1Ks4Df7Gh0Jk2Mn5Bv9Cx3Az6E"
WRITES = {name: s for name, s in bound_statements().items() if s.mode != "read"}
# ids validated as ZK-<8 hex> and project names of [A-Za-z0-9._-]: matched on, never text
VALIDATED_IDS = {"zk_id", "zk_ids", "src", "dst", "project", "merged", "originals"}
_UNWIND = re.compile(r"UNWIND\s+\$(\w+)\s+AS\s+(\w+)")


class Recorder:
    """Stands in for the driver's transaction: keeps the parameters it is given."""

    def __init__(self) -> None:
        self.sent: dict[str, Any] = {}

    def run(self, _query: str, params: dict[str, Any]) -> list[Any]:
        self.sent = params
        return []


class Owner:
    statements_run = 0
    line = None
    secrets_mode = "redact"


def secret_params(name: str) -> dict[str, Any]:
    """A secret in every parameter the statement reads, rows and maps filled field by field."""
    text = body(name)
    rows = {param: var for param, var in _UNWIND.findall(text)}
    params: dict[str, Any] = {}
    for param in set(re.findall(r"\$(\w+)", text)):
        if param in rows:
            fields = set(re.findall(rf"\b{rows[param]}\.(\w+)", text))
            params[param] = [{f: SECRET for f in fields} | {"props": {"title": SECRET}}]
        else:
            params[param] = SECRET
    params.setdefault("fields", {"title": SECRET, "tags": [SECRET]})
    return params


def leaks(value: Any, key: str = "") -> list[str]:
    """Where the secret is still in what was sent, identifiers aside."""
    if key in VALIDATED_IDS:
        return []
    if isinstance(value, str):
        return [key] if SECRET in value else []
    if isinstance(value, dict):
        return [f"{key}.{k}" for k, v in value.items() for _ in leaks(v, k)]
    if isinstance(value, list):
        return [p for v in value for p in leaks(v, key)]
    return []


@pytest.mark.parametrize("name", sorted(n for n, s in WRITES.items() if s.mode == "write"))
def test_every_write_statement_sends_its_text_redacted(name: str) -> None:
    spec: Statement = WRITES[name]
    recorder = Recorder()
    tx = Tx(recorder, Owner(), writable=True)  # type: ignore[arg-type]
    given = secret_params(name)
    tx.run(name, spec.mode, given, spec.changes)
    assert recorder.sent, f"{name} sent nothing"
    assert not leaks(recorder.sent), f"{name} sent a secret in {leaks(recorder.sent)}"
    assert set(recorder.sent) >= set(re.findall(r"\$(\w+)", body(name)))


def test_the_searches_are_reads_the_gate_never_sees() -> None:
    """A search's query is matched on, never stored: its statements read (the gate would
    redact a query holding a secret into other words), its access stamp is written apart."""
    statements = bound_statements()
    assert {statements[n].mode for n in ("search/search_memory", "search/deep_search")} == {
        "read"}
    assert set(re.findall(r"\$(\w+)", body("search/stamp_access"))) == {"stamps"}


def test_the_gate_lets_through_only_validated_identifiers() -> None:
    assert IDENTIFIERS == VALIDATED_IDS


def test_the_gate_reports_kinds_and_refuses_in_reject_mode() -> None:
    sent, found = gate({"rows": [{"reason": f"token {SECRET}", "zk_id": "ZK-0000abcd"}],
                        "vector": [0.5, 0.25]}, "redact")
    assert found == ["github_token"] and SECRET not in str(sent)
    assert sent["rows"][0]["zk_id"] == "ZK-0000abcd" and sent["vector"] == [0.5, 0.25]
    with pytest.raises(InvalidInput, match="github_token") as refused:
        gate({"reason": f"token {SECRET}"}, "reject")
    assert SECRET not in str(refused.value)


def test_a_text_is_redacted_once_and_what_is_built_from_it_again() -> None:
    """hide answers a Redacted text, which the gate passes unread; a text built from it (sliced,
    joined) is a plain string and is read again, and a short text's redaction remembered from
    an earlier write is the same."""
    cleaned, found = hide(f"deploy token {SECRET} for CI", "redact")
    assert isinstance(cleaned, Redacted) and found == ["github_token"] and SECRET not in cleaned
    forged = Redacted(f"token {SECRET}")  # only hide makes these: the gate trusts them
    sent, found = gate({"rows": [{"content": cleaned, "title": forged,
                                  "context": str(cleaned) + f" {SECRET}"}]}, "redact")
    row = sent["rows"][0]
    assert row["content"] is cleaned and row["title"] is forged
    assert SECRET not in row["context"] and found == ["github_token"]
    assert hide(f"key {SECRET}", "redact") == hide(f"key {SECRET}", "redact") \
        == (f"key {cleaned.split()[2]}", ["github_token"])
    with pytest.raises(InvalidInput, match="github_token"):
        hide(f"key {SECRET}", "reject")  # remembered from the redact-mode calls, still refused


def test_no_module_but_the_store_talks_to_the_driver() -> None:
    """A write the gate does not see would need the driver: only db.py imports it to run
    statements (the store's typed rows import neo4j.time's DateTime only; the local server's
    modules use the driver to provision and probe, not to write notes)."""
    root = Path(kg_brain.__file__).parent
    importers = set()
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            if any(n.split(".")[0] == "neo4j" and n != "neo4j.time" for n in names):
                importers.add(path.relative_to(root).as_posix())
    assert "store/db.py" in importers
    assert {p for p in importers if not p.startswith("store/localdb/")} \
        == {"store/db.py"}, importers
