"""`kg-brain bench secrets`: the redactor judged on text it was not built from.

bench/data/secrets.jsonl holds 700 labelled items in the forms secrets take in notes
(shell commands with flags, .env and config files, kube manifests, JSON, logs, connection strings,
chat-style sentences), half of them harmless look-alikes (ids, UUIDs, digests, public keys,
asset names, base64 fixtures, `-p` flags that are ports). Each item comes from a frame written
by hand; values are drawn in the vendors' published shapes. The frames were split once into a
tuning and a check half (seed 28): patterns are developed on the tuning half only, the check
half is the result. A secret counts as hidden when its value no longer appears in the redacted
text; a harmless item counts as changed when the text comes back different in any way.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from bench.common import emit_result
from kg_brain.redact import redact
from kg_brain.settings import Settings

DATA = Path(__file__).parent / "data" / "secrets.jsonl"


def load() -> list[dict[str, Any]]:
    return [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()]


def judge(items: list[dict[str, Any]]) -> dict[str, Any]:
    """Share of secrets hidden and of harmless items changed, and the failures of each."""
    secrets = [i for i in items if i["secret"] is not None]
    harmless = [i for i in items if i["secret"] is None]
    missed = [i for i in secrets if i["secret"] in redact(i["text"])[0]]
    changed = [(i, redact(i["text"])[0]) for i in harmless]
    changed = [(i, out) for i, out in changed if out != i["text"]]
    return {
        "secrets": len(secrets), "hidden": round(1 - len(missed) / len(secrets), 4),
        "harmless": len(harmless), "changed": round(len(changed) / len(harmless), 4),
        "missed": [{"kind": i["kind"], "text": i["text"]} for i in missed],
        "mangled": [{"kind": i["kind"], "text": i["text"], "redacted": out} for i, out in changed],
    }


def run() -> dict[str, Any]:
    items = load()
    began = time.perf_counter()
    halves = {half: judge([i for i in items if i["half"] == half]) for half in ("tune", "check")}
    per_item_ms = 1000 * (time.perf_counter() - began) / (2 * len(items))  # redact runs twice
    return {"benchmark": "secrets", "data": str(DATA.name), "items": len(items),
            "redact_ms_per_item": round(per_item_ms, 3), **halves}


def cmd_secrets(args: argparse.Namespace, settings: Settings) -> int:
    result = run()
    emit_result(result, args.out)
    return 0


def add_parser(kinds: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = kinds.add_parser("secrets", help="redaction on a labelled corpus: tune and check halves")
    p.add_argument("--out", type=Path, default=Path("docs/bench/secrets.json"))
    p.set_defaults(handler=cmd_secrets)
