"""Benchmark: the bulk import of two checkouts, taking turns on one private server.

Each turn imports the scale bench's first stage (`--notes` spread over 24 projects, the same
texts every turn) in a process of its own running one checkout's code, measured as `bench
scale` measures its imports (bench/scale_build.py `imported`: the rate beside raw batched
embedding of 2,000 of the same texts just before and just after, CPU of the process and of the
server), then deletes its projects. The turns go A B B A A B ... so both checkouts meet the
same drift in the machine's load; an untimed import of `--warmup` notes first warms the server.
Ratios compare within one turn; the pair compares across turns.

    python -m bench.import_compare --a /path/to/checkout --b /path/to/other [--notes 5000]
        [--rounds 2] [--out bench-results/import_compare.json]

Each turn runs this file by its path (`python -P`, its folder kept off sys.path) with the
turn's checkout on PYTHONPATH, so `kg_brain` and `bench` are that checkout's.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

WARMUP = "warmup"


def turn(uri: str, password: str, server_pid: int, label: str, notes: int) -> dict[str, Any]:
    """One import into `bench-import-compare-<label>-NN` projects, measured, then deleted."""
    import logging

    from bench import corpus
    from bench.common import delete_bench_project
    from bench.scale_build import Layout, imported
    from kg_brain.base.settings import load_settings
    from kg_brain.root.app import Brain

    logging.getLogger("neo4j").setLevel(logging.ERROR)
    settings = load_settings().model_copy(update={
        "neo4j_uri": uri, "neo4j_password": password, "scheduler_in_server": False,
        "obsidian_api_key": None, "neo4j_timeout_s": 120.0})
    brain = Brain(settings)
    try:
        layout = Layout(f"bench-import-compare-{label}", 24)
        records: list[dict[str, Any]] = []
        for p, (project, count) in enumerate(layout.sizes(notes).items()):
            records += corpus.notes(count, project, seed=10_000 + p)
        before = os.getloadavg()[0]
        entry = imported(brain, records, label, server_pid)
        entry["load_avg_1m"] = {"before": round(before, 2), "after": round(os.getloadavg()[0], 2)}
        for project in layout.names:
            delete_bench_project(brain.db, project)
        return entry
    finally:
        brain.close()


def run(checkouts: dict[str, Path], notes: int, rounds: int, warmup: int,
        save: Any) -> dict[str, Any]:
    from kg_brain.base.settings import load_settings
    from kg_brain.store.localdb import private_server

    order = [name for r in range(rounds) for name in (("a", "b") if r % 2 == 0 else ("b", "a"))]
    result: dict[str, Any] = {"benchmark": "import_compare", "notes": notes, "order": order,
                              "checkouts": {k: str(v) for k, v in checkouts.items()},
                              "turns": []}
    with tempfile.TemporaryDirectory(prefix="kg-import-compare-") as tmp:
        server = private_server(Path(tmp) / "neo4j", load_settings(), heap="2g", pagecache="1g")
        try:
            conn = server.start(timeout_s=300)
            pid = server.running_pid()
            result["server"] = f"private Neo4j {server.release()}, heap 2g, page cache 1g"
            for i, name in enumerate([WARMUP, *order]):
                code = checkouts["a" if name == WARMUP else name]
                count = warmup if name == WARMUP else notes
                label = f"{name}{i}"
                command = [sys.executable, "-P", __file__, "--turn", conn.uri, str(pid), label]
                out = subprocess.run(
                    [*command, str(count)],
                    env={**os.environ, "PYTHONPATH": str(code),
                         "IMPORT_COMPARE_PASSWORD": conn.password or ""},
                    capture_output=True, text=True, check=False)
                if out.returncode:
                    raise RuntimeError(f"turn {label} failed:\n{out.stderr[-4000:]}")
                if name == WARMUP:
                    continue
                entry = {"checkout": name, **json.loads(out.stdout)}
                result["turns"].append(entry)
                sys.stderr.write(f"{label}: import / raw {entry['import_to_raw_ratio']}, "
                                 f"load {entry['load_avg_1m']}\n")
                save(result)
        finally:
            server.stop()
    for name in ("a", "b"):
        ratios = [t["import_to_raw_ratio"] for t in result["turns"] if t["checkout"] == name]
        result[f"{name}_mean_ratio"] = round(sum(ratios) / len(ratios), 3)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", type=Path, help="checkout A")
    parser.add_argument("--b", type=Path, help="checkout B")
    parser.add_argument("--notes", type=int, default=5_000)
    parser.add_argument("--rounds", type=int, default=2, help="turns per checkout")
    parser.add_argument("--warmup", type=int, default=2_000)
    parser.add_argument("--out", type=Path, default=Path("bench-results/import_compare.json"))
    parser.add_argument("--turn", nargs=4, metavar=("URI", "SERVER_PID", "LABEL", "NOTES"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.turn:
        uri, pid, label, count = args.turn
        entry = turn(uri, os.environ["IMPORT_COMPARE_PASSWORD"], int(pid), label, int(count))
        sys.stdout.write(json.dumps(entry) + "\n")
        return 0
    if not (args.a and args.b):
        parser.error("--a and --b are required")
    from bench.common import emit_result
    from kg_brain.root.app import interrupt_on_sigterm

    interrupt_on_sigterm()

    def save(result: dict[str, Any]) -> None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")

    emit_result(run({"a": args.a, "b": args.b}, args.notes, args.rounds, args.warmup, save),
                args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
