"""The `kg-brain` commands: the local Neo4j, the MCP server, the scheduler, data tools, benches."""

from __future__ import annotations

import argparse
import importlib.util
import json
import logging
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from kg_brain.base.errors import BrainError, SetupError
from kg_brain.base.settings import TOOL_PROFILES, Settings, load_settings
from kg_brain.root.app import resolve_connection
from kg_brain.store import admin
from kg_brain.store.db import Database
from kg_brain.store.localdb import local_server
from kg_brain.store.schema import bootstrap_schema
from kg_brain.surfaces.cli.data import register as register_data
from kg_brain.surfaces.cli.service import register as register_service
from kg_brain.surfaces.maintenance import register as register_scheduler
from kg_brain.surfaces.relay import MCP_COMMAND, MCP_HELP, TOOLS_OPTION
from kg_brain.surfaces.transport import register as register_serve
from kg_brain.surfaces.wire import register as register_wire

log = logging.getLogger("kg_brain")
Handler = Callable[[argparse.Namespace, Settings], int]


def _out(text: str) -> None:
    """CLI output (not the MCP server): human-readable lines on stdout."""
    sys.stdout.write(text + "\n")


def cmd_neo4j(args: argparse.Namespace, settings: Settings) -> int:
    server = local_server(settings)
    if args.action == "start":
        began = time.monotonic()
        conn = resolve_connection(settings)
        db = Database(conn, settings.neo4j_timeout_s)
        try:
            bootstrap_schema(db)
            version = admin.server_version(db)["version"]
        finally:
            db.close()
        _out(f"Neo4j {version} ready at {conn.uri} in {time.monotonic() - began:.1f}s")
        if not settings.neo4j_uri:
            _out(f"Browser: http://127.0.0.1:{settings.neo4j_http_port}/browser/ (user neo4j)"
                 + (", opens with the kg-brain guide" if settings.kg_brain_browser_port else ""))
        return 0
    if args.action == "stop":
        _out("stopped" if server.stop() else "not running")
        return 0
    return _status(settings)


def _status(settings: Settings) -> int:
    conn = resolve_connection(settings, start=False)
    db = Database(conn, settings.neo4j_timeout_s)
    try:
        indexes = admin.list_indexes(db)
        counts = admin.note_counts(db)
        version = admin.server_version(db)["version"]
    except BrainError as exc:
        _out(f"{conn.uri}: not reachable ({exc})")
        return 1
    finally:
        db.close()
    status = {
        "uri": conn.uri, "version": version,
        "vector_index": next((f"{i['name']} ({i['state']})" for i in indexes
                              if i["type"] == "VECTOR"), None),
        "notes": sum(int(c["notes"]) for c in counts),
        "notes_by_memory_type": _sum_by(counts, "memory_type"),
    }
    _out(json.dumps(status, indent=2))
    return 0


def _sum_by(rows: list[admin.NoteCount], key: str) -> dict[str, int]:
    totals: dict[str, int] = {}
    for row in rows:
        totals[str(row[key])] = totals.get(str(row[key]), 0) + int(row["notes"])
    return totals


def register_bench(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`kg-brain bench ...`: the benchmark programs are the repository's top-level `bench/`
    package, not part of the installed server. They run only beside the checkout's own kg_brain
    (their statements are its cypher/bench/): an installed kg-brain, even on a path where some
    checkout's `bench` is importable, says how to get them instead."""
    spec = importlib.util.find_spec("bench")
    checkout = Path(__file__).resolve().parents[3]
    if spec is None or spec.origin is None or Path(spec.origin).resolve().parents[1] != checkout:
        absent = sub.add_parser("bench", help="benchmarks (from a checkout of the repository)")
        absent.add_argument("args", nargs=argparse.REMAINDER)
        absent.set_defaults(handler=_bench_absent)
        return
    from bench.cli import register

    register(sub)


def _bench_absent(args: argparse.Namespace, settings: Settings) -> int:
    raise SetupError(
        "the benchmarks are not installed with kg-brain: they are the bench/ package of its "
        "repository. In a checkout, `make install` (pip install -e '.[test,bench,torch]') "
        "makes `kg-brain bench` find them, or run `python -m bench.<program>` from its root.")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kg-brain", description=__doc__)
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging (stderr)")
    sub = parser.add_subparsers(dest="command", required=True)

    neo = sub.add_parser("neo4j", help="start, stop or inspect the local Neo4j server")
    neo.add_argument("action", choices=["start", "stop", "status"])
    neo.set_defaults(handler=cmd_neo4j)
    register_serve(sub)
    # dispatched before this parser: kg_brain/surfaces/cli
    mcp = sub.add_parser(MCP_COMMAND, help=MCP_HELP)
    mcp.add_argument(TOOLS_OPTION, choices=TOOL_PROFILES,
                     help="the MCP tools offered (kg_brain/surfaces/profiles.py); default "
                          "KG_BRAIN_TOOLS")
    register_wire(sub)
    register_service(sub)
    register_scheduler(sub)
    register_data(sub)
    register_bench(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        settings = load_settings()
        handler: Handler = args.handler
        return handler(args, settings)
    except BrainError as exc:
        sys.stderr.write(f"kg-brain: {exc}\n")
        return 2
