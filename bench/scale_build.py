"""The scale bench's database: projects of uneven sizes grown through the bulk import and
add_memory, the import's rate beside the embedding runtime's raw batched rate."""

from __future__ import annotations

import itertools
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from tqdm import tqdm

from bench import corpus, store
from bench.cold_start import cpu_seconds
from kg_brain.base.vocab import VECTOR_INDEX
from kg_brain.domain.memory.text import embed_text
from kg_brain.root.app import Brain
from kg_brain.surfaces.maintenance import SENTENCE_BATCH

RAW_SAMPLE = 2_000  # notes whose raw batched embedding is timed beside each import
SESSION = 8  # add_memory calls of one client session (each FOLLOWS the one before)
WARMUP_ADDS = 10


class Layout:
    """`count` projects named `<prefix>-NN`: the first holds half of the notes, the others
    share the rest by weights that shrink by 0.8 from one to the next (24 projects: the
    smallest holds about 1/1300 of the notes)."""

    def __init__(self, prefix: str, count: int) -> None:
        if count < 2:
            raise ValueError("the layout needs at least 2 projects")
        self.prefix = prefix
        self.names = [f"{prefix}-{i:02d}" for i in range(count)]
        self.weights = [0.8 ** i for i in range(count - 1)]
        self.have = dict.fromkeys(self.names, 0)  # notes written so far

    @property
    def largest(self) -> str:
        return self.names[0]

    @property
    def others(self) -> list[str]:
        return self.names[1:]

    def sizes(self, total: int) -> dict[str, int]:
        """Notes per project at `total` (largest remainders; every project at least 1)."""
        rest = total - total // 2
        scale = rest / sum(self.weights)
        shares = [w * scale for w in self.weights]
        counts = [max(1, int(s)) for s in shares]
        by_remainder = sorted(range(len(shares)), key=lambda i: int(shares[i]) - shares[i])
        for i in by_remainder[: rest - sum(counts)]:
            counts[i] += 1
        return dict(zip(self.names, [total // 2, *counts], strict=True))


def seconds(fn: Callable[[], Any]) -> float:
    began = time.perf_counter()
    fn()
    return time.perf_counter() - began


def floor(brain: Brain, text: str) -> tuple[float, float]:
    """Seconds for one embedding of `text` and for one raw vector query with it."""
    began = time.perf_counter()
    vector = brain.embedder.encode(text)
    embedded = time.perf_counter()
    store.raw_vector_query(brain.db, index=VECTOR_INDEX, k=10, vector=vector)
    return embedded - began, time.perf_counter() - embedded


def floors(brain: Brain, text: str, project: str, kind: str = "general") -> dict[str, float]:
    """The floors of one write of `text` (of note kind `kind`): the text add_memory embeds
    (title, content and context, read from the enricher, untimed) and the content alone, each
    embedded once and queried once."""
    e = brain.deps.enricher.enrich(text, kind, project)
    embed_s, query_s = floor(brain, embed_text(e.title, text, e.context))
    content_embed_s, content_query_s = floor(brain, text)
    return {"floor": embed_s + query_s, "embedding": embed_s, "raw_vector_query": query_s,
            "floor_content": content_embed_s + content_query_s,
            "embedding_content": content_embed_s}


def imported_on(bar: Any) -> Callable[[str, int], None]:
    """The importer's progress, shown on a bar that counts the notes written."""
    def update(phase: str, n: int) -> None:
        if phase == "imported":
            bar.update(n)
    return update


def latency_stats(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"p50_ms": round(statistics.median(ordered) * 1000, 2), "p95_ms": round(p95 * 1000, 2),
            "n": len(ordered)}


def cpu_between(began: float | None, ended: float | None) -> float | None:
    return None if began is None or ended is None else round(ended - began, 1)


def raw_rates(brain: Brain, records: list[dict[str, Any]]) -> tuple[float, float, float]:
    """Notes/s of the import's enrichment (validation, redaction, key phrases, entities) of
    these records, then of raw batched embedding of the text the import embeds for them, and
    that embedding's CPU seconds per note (all of this process's threads)."""
    rows: list[dict[str, Any]] = []
    enrich_s = seconds(lambda: rows.extend(brain.importer.import_row(r) for r in records))
    texts = [embed_text(r["title"], r["content"], r["context"]) for r in rows]
    cpu_began, began = time.process_time(), time.perf_counter()
    brain.embedder.encode_many(texts)
    embed_s, cpu_s = time.perf_counter() - began, time.process_time() - cpu_began
    return len(rows) / enrich_s, len(texts) / embed_s, cpu_s / len(texts)


def imported(brain: Brain, records: list[dict[str, Any]], label: str,
             server_pid: int | None = None) -> dict[str, Any]:
    """The bulk import of `records` with a progress bar on stderr, between two timings of raw
    batched embedding of a sample of the same texts; the ratio is to the faster of the two.
    The split: the import's seconds, of them embedding (on its own thread) and writing. The
    CPU: seconds this process used during the import (embedding, checking, the driver's
    writes), of them what raw embedding of as many notes uses (the slower sample's per-note
    CPU), and the seconds the server process `server_pid` used (a private server's; None
    otherwise)."""
    sample = records[:RAW_SAMPLE]
    brain.embedder.encode_many([r["content"] for r in sample[:64]])  # load and warm the model
    enrich, before, cpu_before = raw_rates(brain, sample)
    split: dict[str, float] = {}
    server_began = cpu_seconds(server_pid) if server_pid else None
    cpu_began = time.process_time()
    with tqdm(total=len(records), desc=label, file=sys.stderr, unit="note") as bar:
        import_s = seconds(lambda: brain.importer.add_many(
            records, progress=imported_on(bar), split=split))
    cpu_s = time.process_time() - cpu_began
    server_cpu = cpu_between(server_began, cpu_seconds(server_pid) if server_pid else None)
    _, after, cpu_after = raw_rates(brain, sample)
    rate = len(records) / import_s
    return {"imported": len(records), "embedding_runtime": brain.embedder.runtime,
            "raw_embedding_notes_per_s": {"before": round(before, 1), "after": round(after, 1)},
            "enrichment_notes_per_s": round(enrich, 1),
            "bulk_import_notes_per_s": round(rate, 1),
            "import_to_raw_ratio": round(rate / max(before, after), 3),
            "import_split_s": {"total": round(import_s, 1),
                               **{k: round(v, 1) for k, v in split.items()}},
            "import_cpu_s": {"kg_brain": round(cpu_s, 1),
                             "raw_embedding_of_as_many": round(
                                 max(cpu_before, cpu_after) * len(records), 1),
                             "server": server_cpu}}


def sentence_jobs(brain: Brain, server_pid: int | None = None) -> dict[str, Any]:
    """The sentences jobs the import and the adds queued (kg_brain/domain/memory/sentences.py),
    drained batch after batch as the scheduler's drain does: the notes given their sentences, and
    per note the wall milliseconds and the CPU milliseconds of this process (the sentences'
    embedding, the driver) and of the server `server_pid` (None: not a private server)."""
    server_began = cpu_seconds(server_pid) if server_pid else None
    cpu_began, began = time.process_time(), time.perf_counter()
    notes = 0
    while done := brain.sentence_jobs.process(SENTENCE_BATCH):
        notes += done
    wall_s, cpu_s = time.perf_counter() - began, time.process_time() - cpu_began
    server_cpu = cpu_between(server_began, cpu_seconds(server_pid) if server_pid else None)
    per = max(notes, 1)
    return {"notes": notes, "wall_ms_per_note": round(wall_s * 1000 / per, 2),
            "cpu_ms_per_note": {"kg_brain": round(cpu_s * 1000 / per, 2),
                                "server": None if server_cpu is None else round(
                                    server_cpu * 1000 / per, 2)}}


def _adds_per_project(layout: Layout, adds: int) -> dict[str, int]:
    """Half of the adds in the largest project, the other half spread over the others in
    whole sessions, round robin."""
    plan = dict.fromkeys(layout.names, 0)
    plan[layout.largest] = adds // 2
    rest, others = adds - adds // 2, layout.others
    for i in range(0, rest, SESSION):
        plan[others[(i // SESSION) % len(others)]] += min(SESSION, rest - i)
    return plan


def _sessions(layout: Layout, plan: dict[str, int]) -> list[tuple[str, int, int]]:
    """(project, session number, calls) for every session of the plan, the largest project's
    sessions taking turns with the others', so warm-up and timing fall on both."""
    mine: dict[bool, list[tuple[str, int, int]]] = {True: [], False: []}
    for project, count in plan.items():
        for n, start in enumerate(range(0, count, SESSION)):
            mine[project == layout.largest].append((project, n, min(SESSION, count - start)))
    turns = itertools.zip_longest(mine[True], mine[False])
    return [s for pair in turns for s in pair if s is not None]


def _add_s(brain: Brain, text: str, kind: str, project: str, session: str) -> float:
    return seconds(lambda: brain.writer.add(text, project, note_kind=kind, session_id=session))


def added(brain: Brain, layout: Layout, plan: dict[str, int],
          stage: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """add_memory in client sessions of up to SESSION calls, timed (the first WARMUP_ADDS
    not), each beside the floors of one write of the same text (`floors`), the order
    alternating so both see the same load: p50/p95 of the adds, then of their floors, in the
    largest project and in the others."""
    times: dict[str, list[float]] = {"largest": [], "other": []}
    floor_times: dict[str, dict[str, list[float]]] = {"largest": {}, "other": {}}
    done = 0
    seeds = {project: p for p, project in enumerate(layout.names)}
    with tqdm(total=sum(plan.values()), desc="add_memory", file=sys.stderr, unit="note") as bar:
        for project, n, calls in _sessions(layout, plan):
            seed = 10_000 * (stage + 1) + 1_000 * (n + 1) + seeds[project]
            session = f"scale-{stage}-{seeds[project]}-{n}"
            for record in corpus.notes(calls, project, seed=seed):
                text, kind = record["content"], record["note_kind"]
                if done % 2:
                    timed = floors(brain, text, project, kind)
                    took = _add_s(brain, text, kind, project, session)
                else:
                    took = _add_s(brain, text, kind, project, session)
                    timed = floors(brain, text, project, kind)
                done += 1
                bar.update(1)
                if done > WARMUP_ADDS:
                    where = "largest" if project == layout.largest else "other"
                    times[where].append(took)
                    for name in ("floor", "floor_content"):
                        floor_times[where].setdefault(name, []).append(timed[name])
    return ({where: latency_stats(values) for where, values in times.items() if values},
            {where: {name: latency_stats(values) for name, values in parts.items()}
             for where, parts in floor_times.items() if parts})


def grow(brain: Brain, layout: Layout, size: int, add_share: float, stage: int,
         server_pid: int | None = None) -> dict[str, Any]:
    """The layout's projects grown to `size` notes in all: the share `add_share` of the new
    notes through add_memory, the rest through the bulk import (`server_pid`: the private
    server's process, whose CPU during the import is recorded)."""
    target = layout.sizes(size)
    new = {project: max(0, target[project] - layout.have[project]) for project in layout.names}
    plan = _adds_per_project(layout, round(sum(new.values()) * add_share))
    records: list[dict[str, Any]] = []
    for p, project in enumerate(layout.names):
        plan[project] = min(plan[project], new[project])
        count = new[project] - plan[project]
        records += corpus.notes(count, project, seed=10_000 * (stage + 1) + p)
    entry = imported(brain, records, f"import to {size}", server_pid)
    entry["add_memory"], entry["add_memory_write_floor"] = added(brain, layout, plan, stage)
    entry["sentence_jobs"] = sentence_jobs(brain, server_pid)
    for project in layout.names:
        layout.have[project] += new[project]
    return entry
