"""Benchmark: `kg-brain export` and `kg-brain import` rates (notes/s) over synthetic notes.

Inserts N synthetic notes (default 10,000, with 384-d vectors and a few links, the archive
bench's generator) into a `bench-views-*` project, then times: the JSON Lines export to a
temporary file, the restore as a copy (`--as-project`, fresh ids), and the restore in place
(every note replaced). Prints the figures as JSON and saves them; both bench projects are
deleted afterwards unless --keep.

    python -m bench.export_import [--notes 10000] [--out bench-results/export_import.json]
"""

from __future__ import annotations

import argparse
import tempfile
import uuid
from pathlib import Path
from typing import Any

from bench.archive import populate, timed
from bench.common import delete_bench_project, emit_result
from kg_brain.base.clock import utc_now
from kg_brain.base.settings import load_settings
from kg_brain.root.app import connect
from kg_brain.views.backup import (
    export_records,
    read_file,
    restore_records,
    write_jsonl,
)


def run(notes: int, seed: int, keep: bool) -> dict[str, Any]:
    db = connect(load_settings(neo4j_timeout_s=300))
    project = f"bench-views-{uuid.uuid4().hex[:8]}"
    copy = f"{project}-copy"
    now = utc_now()
    try:
        _, insert_s = timed(lambda: populate(db, project, notes, now, seed))
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "backup.jsonl"

            def export() -> Any:
                with path.open("w", encoding="utf-8") as fh:
                    return write_jsonl(export_records(db, [project], now=now), fh)

            counts, export_s = timed(export)
            size = path.stat().st_size
            copied, copy_s = timed(lambda: restore_records(db, read_file(path)[1], copy))
            restored, in_place_s = timed(lambda: restore_records(db, read_file(path)[1]))
        return {
            "benchmark": "export_import", "notes": notes, "links": counts.links,
            "server_version": db.server_version(), "insert_s": insert_s,
            "export_s": export_s, "export_notes_per_s": round(counts.notes / export_s),
            "file_mb": round(size / 1e6, 1),
            "import_copy_s": copy_s, "import_copy_notes_per_s": round(copied.notes / copy_s),
            "import_in_place_s": in_place_s,
            "import_in_place_notes_per_s": round(restored.notes / in_place_s),
            "skipped": copied.skipped + restored.skipped,
        }
    finally:
        if not keep:
            for name in (project, copy):
                delete_bench_project(db, name)
        db.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=Path("bench-results/export_import.json"))
    parser.add_argument("--keep", action="store_true", help="keep the bench projects")
    args = parser.parse_args(argv)
    result = run(args.notes, args.seed, args.keep)
    emit_result(result, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
