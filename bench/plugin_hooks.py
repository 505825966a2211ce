"""What the OpenCode plugin adds to a model call: the time each hook waits for the warm shared
service, and the bytes it adds to the prompt, with an HTTP round trip to `/health` (no memory
work) as the in-run floor.

    python -m bench.plugin_hooks [--rounds 40] [--out docs/bench/plugin_hooks.json]

Starts `kg-brain serve --http` on a free port (its model loaded first), seeds a scratch
`bench-plugin-*` project through the plugin's own endpoint (decisions, handoffs, a failing
command fixed in one session and failing again in the next: the one a session holds), then
runs the plugin under Node (bench/plugin_hooks.mjs) calling its hooks as OpenCode does. The
project is deleted afterwards. Needs Node.js 18+.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import statistics
import subprocess
import tempfile
import uuid
from pathlib import Path
from typing import Any

import httpx

from bench.cold_start import start_service
from bench.common import BENCH_PREFIX, delete_bench_project, emit_result
from kg_brain.surfaces.plugin import SOURCE

DRIVER = Path(__file__).with_name("plugin_hooks.mjs")
FAILING = "pytest tests/billing -x"
FAILING_KEY = json.dumps([[";", [["pytest", "tests/billing", "-x"]]]], separators=(",", ":"))
ERROR = "E   ImportError: cannot import name 'Retry' from billing.http"
DECISIONS = ["Invoices are stored in cents as integers, never floats.",
             "The ledger API is called through ledger/client.py only, with retries.",
             "Feature flags live in config/flags.toml and are read once at start."]
FACTS = ["Invoice PDFs are rendered by weasyprint in the worker queue, never in the web process.",
         "Customer emails go out through Postmark; the template ids are in config/email.toml.",
         "The nightly export job writes the ledger CSV to s3://acme-exports before 02:00 UTC."]
# user messages: each about one fact above, and ones about nothing stored
RELEVANT = ["Where do the invoice PDFs get rendered?", "Which service sends the customer emails?",
            "When does the nightly ledger export run and where does it write?"]
UNRELATED = ["Write a haiku about autumn leaves", "What is the capital of Australia?",
             "Explain how a bicycle gear works"]


def seed(base: str, directory: str, token: str) -> None:
    """Notes a working project has, written as the plugin writes them."""
    def post(action: str, body: dict[str, Any]) -> dict[str, Any]:
        reply = httpx.post(f"{base}/plugin/{action}", json={"directory": directory, **body},
                           headers={"Authorization": f"Bearer {token}"}, timeout=120)
        reply.raise_for_status()
        answer: dict[str, Any] = reply.json()
        return answer

    for text in DECISIONS + FACTS:
        post("remember", {"text": text})
    # fixed in one session, failing again at the end of the next: its last run failed and a fix
    # is known, so a later session holds it once
    for session, outcome in (("seed-fixed", "passed"), ("seed-failing", None)):
        post("failure", {"session_id": session, "command": FAILING, "key": FAILING_KEY,
                         "exit": 1, "output": ERROR, "requests": ["Fix the billing tests"],
                         "events": [f"ran `{FAILING}` (exit 1)"]})
        if outcome:
            post("passed", {"session_id": session, "command": FAILING, "key": FAILING_KEY,
                            "edited": ["billing/http.py"],
                            "events": ["edited billing/http.py", f"ran `{FAILING}` (exit 0)"]})
        post("close", {"session_id": session})


def summary(samples: list[dict[str, float]]) -> dict[str, float]:
    ms = sorted(s["ms"] for s in samples)
    return {"p50_ms": round(statistics.median(ms), 2),
            "p95_ms": round(ms[min(len(ms) - 1, int(0.95 * len(ms)))], 2),
            "max_ms": round(ms[-1], 2), "bytes_added": max(s["bytes"] for s in samples),
            "calls_adding_bytes": sum(1 for s in samples if s["bytes"] > 0), "n": len(ms)}


def run(rounds: int, port: int, folder: Path, env: dict[str, str]) -> dict[str, Any]:
    """`env`: the service's, whose KG_BRAIN_HTTP_TOKEN the plugin sends as OpenCode's would."""
    base = f"http://127.0.0.1:{port}"
    seed(base, str(folder), env["KG_BRAIN_HTTP_TOKEN"])
    config = {"url": base, "start": [], "budget_tokens": 2000, "recall_budget_tokens": 600,
              "read_timeout_ms": 5000, "write_timeout_ms": 20000}
    messages = {"relevant": RELEVANT, "unrelated": UNRELATED}
    done = subprocess.run(["node", str(DRIVER), str(SOURCE), json.dumps(config), str(folder),
                           str(rounds), FAILING, json.dumps(messages)], capture_output=True,
                          text=True, timeout=1800, check=True, env=env)
    hooks = {name: summary(s) for name, s in json.loads(done.stdout).items()}
    return {"hooks": hooks, "rounds": rounds, "cpus": os.cpu_count(),
            "load_avg_1m": round(os.getloadavg()[0], 2),
            "note": "system_first_call: one /plugin/start per session; system_cached: later "
                    "calls of the session; chat_message: a user message (begins the recall, does "
                    "not wait); "
                    "recall_relevant / recall_unrelated / recall_repeated: the next model call's "
                    "system prompt waiting for the recall of a message about a stored note, about "
                    "nothing stored, and the relevant message again (its note already shown), "
                    "bytes beyond the start context; bash_before_other / "
                    "bash_before_known_failure: before a bash run, matched locally against the "
                    "start context's failed commands (the second, an equivalent spelling of a "
                    "failed command, is held: its bytes are the warning with the fix); "
                    "bash_after_success: a run that succeeds; bash_after_failure: one "
                    "/plugin/failure (a write); health_round_trip: the "
                    "floor of one HTTP request to the service"}


def main(argv: list[str] | None = None) -> int:
    from kg_brain.base.settings import load_settings
    from kg_brain.root.app import Brain
    from kg_brain.store.localdb import free_port

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--out", type=Path, default=Path("plugin_hooks.json"))
    args = parser.parse_args(argv)
    port = free_port()
    env = {**os.environ, "SCHEDULER_IN_SERVER": "false", "KG_BRAIN_SERVICE_START": "false",
           "KG_BRAIN_HTTP_PORT": str(port), "KG_BRAIN_HTTP_TOKEN": secrets.token_urlsafe(24)}
    folder = Path(tempfile.mkdtemp()) / f"{BENCH_PREFIX}plugin-{uuid.uuid4().hex[:8]}"
    (folder / ".git").mkdir(parents=True)
    service = start_service(env)
    try:
        emit_result(run(args.rounds, port, folder, env), args.out)
    finally:
        service.terminate()
        service.wait(timeout=30)
        brain = Brain(load_settings())
        delete_bench_project(brain.db, folder.name)
        brain.close()
        shutil.rmtree(folder.parent, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
