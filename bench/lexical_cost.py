"""Where the searches' lexical channel spends its time, in one database of the scale bench's
layout (bench/scale_build.py Layout: one project of half the notes, the others shrinking by 0.8)
on a private server (bench/scale.py's): for each query, in a few projects, search_memory and
deep_search as the app calls them (access not stamped), each again without the lexical channel;
search_memory as a project of more than OWN_IDF_MAX notes is searched (the whole query) and word
by word with each word's hits cut at the whole query's fetch (Tuning.lex_fetch), what the
channel would cost ranked so (neither answers as search_memory does); the lexical channel alone
(cypher/bench/lexical_channel.cypher, the fragment search_memory includes), its full-text
queries alone with every hit counted, the same queries asked for one hit each (the calls' own
cost), the same queries with each hit's project read and the project's hits collected, and one
raw vector query (the floor of bench scale's ratios). The calls of one query run in a rotating
order, so the machine's load falls on all of them alike; each part's median is given beside its
median ratio to search_memory's own time on the same query (paired).

    python -m bench.lexical_cost --notes 10000 --queries 30 --out docs/bench/lexical-cost-10k.json
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import uuid
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench import corpus, store
from bench.common import emit_result
from bench.scale import load_avg, private_run
from bench.scale_build import Layout, imported, latency_stats, seconds
from bench.scale_profile import Recording
from kg_brain.base.settings import Settings
from kg_brain.base.vocab import VECTOR_INDEX
from kg_brain.domain.query_text import fielded_query, in_project, lucene_query, whole_query
from kg_brain.domain.search import Search
from kg_brain.root.app import Brain, interrupt_on_sigterm
from kg_brain.store import search as statements

PROJECTS = 24
PLACES = (0, 1, 4, 10)  # the projects measured, by rank of size (0: the largest)
WARMUP_ROUNDS = 2


def build(brain: Brain, notes: int) -> Layout:
    """The layout's projects filled to `notes` in all through the bulk import."""
    layout = Layout(f"bench-lexical-{uuid.uuid4().hex[:6]}", PROJECTS)
    records: list[dict[str, Any]] = []
    for p, (project, count) in enumerate(layout.sizes(notes).items()):
        records += corpus.notes(count, project, seed=10_000 + p)
        layout.have[project] = count
    imported(brain, records, f"import {notes}")
    return layout


def no_lexical(params: dict[str, Any]) -> dict[str, Any]:
    """A search's parameters with no lexical part."""
    return {**params, "question": {**params["question"], "lex": []}}


def parts(brain: Brain, query: str,
          project: str) -> tuple[dict[str, Callable[[], Any]], dict[str, Any]]:
    """Every call measured for one query in one project, by name, and search_memory's
    parameters."""
    recording = Recording(brain.db)
    search = Search(replace(brain.deps, db=recording))  # type: ignore[arg-type]
    search.search_memory(query, project, top_k=10, stamp=False)
    assert recording.last is not None
    memory = dict(recording.last[1])
    search.deep_search(query, project, top_k=10, stamp=False)
    assert recording.last is not None
    deep = dict(recording.last[1])
    db = brain.db
    asked = memory["question"]
    lexical = {key: memory[key] for key in ("notes", "lex_df", "rare_share", "pool")}
    lexical["project"] = project
    lexical["question"] = {key: asked[key] for key in ("lex", "excluded", "kinds")}
    # the project searched as one larger than OWN_IDF_MAX is: the whole query, scored as the
    # index scores it, its lexical floors (Search._lexical); and word by word with each word's
    # hits cut at the whole query's fetch
    whole = {**memory, "question": {**asked, "lex": whole_query(in_project(fielded_query(
        lucene_query(query), search._boosts()), project))}, "lex_df": memory["lex_fetch"],
        "lex_floor": search.tuning.lex_floor, "floor": search.tuning.floor}
    cut = {**memory, "lex_df": min(memory["lex_df"], memory["lex_fetch"])}
    return {
        "search_memory": lambda: statements.search_memory(db, **memory),
        "search_memory_no_lexical": lambda: statements.search_memory(db, **no_lexical(memory)),
        "search_memory_whole_query": lambda: statements.search_memory(db, **whole),
        "search_memory_words_cut": lambda: statements.search_memory(db, **cut),
        "deep_search": lambda: statements.deep_search(db, **deep),
        "deep_search_no_lexical": lambda: statements.deep_search(db, **no_lexical(deep)),
        "lexical_channel": lambda: store.lexical_channel(db, **lexical),
        "index_hits": lambda: store.lexical_index_hits(db, lex=asked["lex"],
                                                       limit=memory["lex_df"]),
        "index_calls": lambda: store.lexical_index_hits(db, lex=asked["lex"], limit=1),
        "project_hits": lambda: store.lexical_project_hits(
            db, lex=asked["lex"], lex_df=memory["lex_df"], project=project),
        "raw_vector_query": lambda: store.raw_vector_query(
            db, index=VECTOR_INDEX, k=10, vector=memory["vector"]),
    }, memory


def measure(brain: Brain, project: str, queries: list[str], rounds: int) -> dict[str, Any]:
    """Each part's latency and its paired ratio to search_memory, and the lexical channel's
    terms and hits per query."""
    asked = [parts(brain, q, project) for q in queries]
    calls = [call for call, _ in asked]
    names = list(calls[0])
    samples: dict[str, list[float]] = {name: [] for name in names}
    for r in range(WARMUP_ROUNDS + rounds):
        for i, call in enumerate(calls):
            shift = (i + r) % len(names)
            for name in names[shift:] + names[:shift]:
                took = seconds(call[name])
                if r >= WARMUP_ROUNDS:
                    samples[name].append(took)
    hits = [store.lexical_project_hits(brain.db, lex=p["question"]["lex"], lex_df=p["lex_df"],
                                       project=project)["hits"] for _, p in asked]
    terms = [len(p["question"]["lex"]) for _, p in asked]
    base = samples["search_memory"]
    return {"notes": None, "terms_p50": statistics.median(terms),
            "project_hits_p50": statistics.median(hits),
            "parts": {name: {**latency_stats(values),
                             "to_search_memory": round(statistics.median(
                                 [v / b for v, b in zip(values, base, strict=True)]), 3)}
                      for name, values in samples.items()}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--notes", type=int, default=10_000)
    ap.add_argument("--queries", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--out", default="docs/bench/lexical-cost.json")
    args = ap.parse_args(argv)
    interrupt_on_sigterm()
    logging.getLogger("neo4j").setLevel(logging.ERROR)
    settings = Settings()

    def run_it(brain: Brain, _pid: int | None) -> dict[str, Any]:
        layout = build(brain, args.notes)
        queries = corpus.queries(args.queries)
        result: dict[str, Any] = {"notes": args.notes, "queries": args.queries,
                                  "rounds": args.rounds, "projects": {}}
        before = load_avg()
        for place in PLACES:
            project = layout.names[place]
            entry = measure(brain, project, queries, args.rounds)
            entry["notes"] = layout.have[project]
            result["projects"][str(place)] = entry
            sys.stderr.write(f"{project} ({layout.have[project]} notes): "
                             f"{ {k: v['p50_ms'] for k, v in entry['parts'].items()} }\n")
        result["load_avg_1m"] = {"before": before, "after": load_avg(), "cpus": os.cpu_count()}
        return result

    emit_result(private_run(settings, run_it), Path(args.out), settings)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
