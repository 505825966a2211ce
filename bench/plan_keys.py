"""How many plans the hot read statements need over the coding tune questions. Neo4j 5 caches a
plan under the statement's text, whether its transaction wrote before it, and each parameter's
kind: its type (a float, null and anything else unnamed are ANY; a list of text is
LIST<STRING>, any other list, an empty one included, LIST<ANY>; a map is MAP, whatever it
holds) and, for text and lists, the class of its size (0, 1, at most 10, 100, 1,000, ...). A
call whose key is new is planned when it comes; on a loaded server that takes seconds.

Each coding tune question (its first wording) is asked of its project by search_memory,
deep_search and preflight_check, and (--name-lengths) of projects named with so many characters
(holding no notes: a project name's size class is keyed as any text's); the statements are
keyed, not run (project_share, the count of a project's notes, runs). Needs the tune corpus
written (`--reuse` manifest of `kg-brain bench retrieval --suite coding --split tune`).

    python -m bench.plan_keys --manifest COPY-OF-coding-tune11.json --name-lengths 1 3 40 64 \
        --out docs/bench/tune/X.json
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from bench.coding_data import shipped_projects
from bench.common import emit_result
from kg_brain.base.settings import Settings
from kg_brain.root.app import Brain
from kg_brain.store import db as store_db

KEYED = ("search/search_memory", "search/deep_search", "mistakes/preflight_mistakes")
Key = tuple[tuple[str, str], ...]


def size_class(n: int) -> int:
    """Neo4j's size bucket of a text or list parameter: 0, 1, then the next power of 10."""
    return n if n <= 1 else 10 ** math.ceil(math.log10(n))


def kind(value: object) -> str:
    if isinstance(value, bool):
        return "BOOL"
    if isinstance(value, int):
        return "INT"
    if isinstance(value, str):
        return f"STRING/{size_class(len(value))}"
    if isinstance(value, dict):
        return "MAP"
    if isinstance(value, list | tuple):
        inner = "STRING" if value and all(isinstance(v, str) for v in value) else "ANY"
        return f"LIST<{inner}>/{size_class(len(value))}"
    if isinstance(value, datetime):
        return "DATE_TIME"
    return "ANY"  # float, None


def plan_key(params: dict[str, Any], wrote: bool = False) -> Key:
    """The plan-cache key of a statement's parameters (its text aside)."""
    return (("<wrote before>", str(wrote)), *sorted((k, kind(v)) for k, v in params.items()))


@contextmanager
def keyed(record: Callable[[str, Key], None]) -> Iterator[None]:
    """Every statement's key recorded; the KEYED statements answer nothing, unrun."""
    run = store_db.Tx.run

    def recorded(tx: store_db.Tx, name: str, mode: store_db.Mode, params: dict[str, Any],
                 changes: tuple[str, ...] = ()) -> list[store_db.Row]:
        record(name, plan_key(params))
        return [] if name in KEYED else run(tx, name, mode, params, changes)

    store_db.Tx.run = recorded  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        store_db.Tx.run = run  # type: ignore[method-assign]


def varying(keys: list[Key]) -> dict[str, dict[str, int]]:
    """The parameters whose kind differs between keys, each kind's count."""
    seen: dict[str, Counter[str]] = defaultdict(Counter)
    for key in keys:
        for name, k in key:
            seen[name][k] += 1
    return {name: dict(c) for name, c in sorted(seen.items()) if len(c) > 1}


def coverage(calls: list[tuple[str, Key]]) -> dict[str, Any]:
    by_statement: dict[str, list[Key]] = defaultdict(list)
    for name, key in calls:
        by_statement[name].append(key)
    out: dict[str, Any] = {}
    for name, keys in sorted(by_statement.items()):
        ranked = Counter(keys).most_common()
        reach, covered = 0, []
        for _, n in ranked:
            reach += n
            covered.append(round(reach / len(keys), 3))
        differ = varying(keys)
        out[name] = {"calls": len(keys), "distinct_keys": len(ranked),
                     "share_of_calls_by_the_commonest_keys": covered[:12],
                     "commonest_keys": [{"calls": n, "kinds": {p: k for p, k in key if p in differ}}
                                        for key, n in ranked[:10]],
                     "parameters_that_vary": differ}
    return out


def measure(brain: Brain, manifest: dict[str, Any],
            name_lengths: Sequence[int] = ()) -> dict[str, Any]:
    calls: list[tuple[str, Key]] = []
    asked = 0
    with keyed(lambda name, key: calls.append((name, key))):
        for data in shipped_projects(split="tune"):
            stored = manifest[data.name]["project"]
            for q in data.questions:
                for project in (stored, *("p" * n for n in name_lengths)):
                    brain.search.search_memory(q.text, project, stamp=False)
                    brain.search.deep_search(q.text, project, stamp=False)
                    brain.mistakes.preflight_check(q.text, project)
                    asked += 1
            sys.stderr.write(f"{data.name}: {asked} questions so far\n")
    return {"questions": asked, "project_name_lengths": ["stored", *name_lengths],
            "statements": coverage([(n, k) for n, k in calls if n in KEYED])}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--manifest", required=True, type=Path,
                    help="the tune corpus' manifest (a copy: benchmark project -> stored project)")
    ap.add_argument("--name-lengths", type=int, nargs="*", default=[],
                    help="each question asked again of a project named with so many characters")
    ap.add_argument("--out", default="docs/bench/tune/plan-keys.json")
    args = ap.parse_args(argv)
    logging.getLogger("neo4j").setLevel(logging.ERROR)
    settings = Settings()
    brain = Brain(settings)
    try:
        result = measure(brain, json.loads(args.manifest.read_text()), args.name_lengths)
    finally:
        brain.close()
    emit_result(result, Path(args.out), settings)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
