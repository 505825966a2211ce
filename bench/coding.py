"""`kg-brain bench retrieval --suite coding`: the coding-agent benchmark, end to end.

Each project of the data (bench/data/coding) is replayed into a fresh project
`<prefix>-coding-<run>-<name>` (`--prefix`, `bench` by default) through the domain functions the
MCP tools call (add_memory, update_memory, record_failure, record_resolution, close_session),
its look-alike notes in sessions of their own between the real sessions, every write dated as an
agent makes them (minutes apart within a session, hours to days between sessions;
bench/coding_lookalikes.py) and made in its client session `<project>:<label>`; the evolution
queue is drained; then every question runs through each method, the numpy fusion baseline
reading the notes as stored.
Metrics per method, overall and per question type (lookup, identifier, current_value, history:
the old note first, decision, symptom_fix, multi_note): hit@1, MRR, all-needed@3/@5, and how
often a note that must yield (an outdated fact, a mistake instead of its fix) ranks above the
other.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from bench.coding_data import (
    LOOKALIKE_PREFIX,
    QUESTION_TYPES,
    THREAD_SUFFIX,
    CodingProject,
    Question,
    Step,
)
from bench.coding_lookalikes import dates, lookalikes, schedule
from bench.common import delete_bench_project, write_into
from bench.ingest import drain_evolution, evolution_jobs, run_sentences
from bench.methods import Method
from bench.metrics import floor_sweep, latency, score_expected, summarise
from kg_brain.base.clock import utc_now
from kg_brain.root.app import Brain

log = logging.getLogger(__name__)
DEPTH = 10


class ReplayClock:
    """While a project is replayed, the time of the write being replayed (notes carry dates
    spread over weeks, in order); otherwise the real time, which queue leases are taken in
    (other processes' workers share the queue)."""

    def __init__(self) -> None:
        self.replaying: datetime | None = None

    def __call__(self) -> datetime:
        return self.replaying or utc_now()

    def start(self, at: datetime) -> None:
        self.replaying = at

    def stop(self) -> None:
        self.replaying = None


@dataclass
class Replayed:
    """What the write path made of one project's steps."""

    project: str
    ids: dict[str, str] = field(default_factory=dict)  # note key -> zk_id
    merged_real: list[str] = field(default_factory=list)  # real notes merged into another
    merged_lookalikes: int = 0
    write_s: float = 0.0
    evolution_jobs: int = 0
    evolution_applied: int = 0  # by this process; other processes' workers may take some
    drain_s: float = 0.0

    def stats(self, real: int, fake: int) -> dict[str, Any]:
        return {"project": self.project, "real_notes": real, "lookalike_notes": fake,
                "merged_real": self.merged_real, "merged_lookalikes": self.merged_lookalikes,
                "write_s": round(self.write_s, 1), "evolution_jobs": self.evolution_jobs,
                "evolution_applied": self.evolution_applied, "drain_s": round(self.drain_s, 1)}


def write_step(brain: Brain, step: Step, project: str, ids: dict[str, str],
               session: str) -> bool:
    """One step through the tool's domain function, in the client session `session`; returns
    whether it merged into an existing note (dedup)."""
    if step.tool == "add_memory":
        added = brain.writer.add(step.content, project, note_kind=step.note_kind,
                                 session_id=session)
        ids[step.key] = added.note.zk_id
        return added.deduplicated
    if step.tool == "update_memory":
        ids[step.key] = brain.writer.update(ids[str(step.target)], step.content).note.zk_id
        return False
    if step.tool == "record_failure":
        failed = brain.mistakes.record_failure(step.content, project,
                                                     step.failure_signature, session_id=session)
        ids[step.key] = failed.zk_id
        return failed.deduplicated
    if step.tool == "record_resolution":
        fixed = brain.mistakes.record_resolution(ids[str(step.failure)], step.content,
                                                 project, session_id=session)
        ids[step.key] = fixed.fix_zk_id
        return fixed.deduplicated
    closed = brain.sessions.close(project, **step.handoff, session_id=session)
    ids[step.key], ids[step.key + THREAD_SUFFIX] = closed.summary_zk_id, closed.open_thread_zk_id
    return False


def client_session(project: str, label: str) -> str:
    """The client session a step is written in, `<project>:<label>`; a look-alike session's
    label (`~s3`) is spelled `lookalike.s3`, as session ids take letters, digits, '_', '.',
    ':' and '-' only."""
    return f"{project}:{label.replace(LOOKALIKE_PREFIX, 'lookalike.')}"


def replay(brain: Brain, clock: ReplayClock, steps: list[Step], times: list[datetime],
           project: str) -> Replayed:
    """Write the steps in order, each at its time, in its client session (client_session),
    applying the evolution jobs after each write as a scheduler would (in real time: queue
    leases are shared with other processes) and waiting out any another process holds, so
    every job is applied before the next write whoever takes it: a write is reproducible."""
    out = Replayed(project)
    began = time.monotonic()
    for step, at in zip(steps, times, strict=True):
        clock.start(at)
        try:
            merged = write_step(brain, step, project, out.ids, client_session(project, step.label))
        finally:
            clock.stop()
        if merged:
            if step.real:
                out.merged_real.append(step.key)
            else:
                out.merged_lookalikes += 1
        out.evolution_applied += drain_evolution(brain, project)
    out.write_s = time.monotonic() - began
    began = time.monotonic()
    out.evolution_applied += drain_evolution(brain, project)
    run_sentences(brain, project)
    out.evolution_jobs = evolution_jobs(brain, project)
    out.drain_s = time.monotonic() - began
    return out


def must_yield(question: Question, steps: dict[str, Step]) -> list[tuple[str, str]]:
    """(better, worse) pairs of a question: the current fact over each outdated one, and a fix
    over the mistake it resolves when both are expected."""
    pairs = [(e, o) for e in question.expected for o in question.outdated]
    for key in question.expected:
        failure = steps[key].failure if key in steps else None
        if failure in question.expected:
            pairs.append((key, str(failure)))
    return pairs


@dataclass
class Tally:
    """Scores, latencies and best relevances per method, accumulated over projects."""

    scored: dict[str, list[tuple[str, dict[str, float | None]]]]
    latency: dict[str, list[float]]
    relevance: dict[str, list[tuple[float | None, float]]]  # best relevance, hit@1
    absent: dict[str, list[tuple[bool, float | None]]]  # answered nothing, best relevance
    questions: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def of(cls, names: list[str]) -> Tally:
        return cls(*({m: [] for m in names} for _ in range(4)))  # type: ignore[arg-type]

    def result(self) -> dict[str, Any]:
        return {"methods": {m: summarise(rows, "by_type") | {"latency_ms": latency(self.latency[m])}
                            | self._floor(m) for m, rows in self.scored.items()},
                "questions": self.questions}

    def _floor(self, method: str) -> dict[str, Any]:
        """Questions about nothing stored: the share answered with nothing, and (for a search
        reporting relevance) what each floor would do."""
        absent = self.absent[method]
        if not absent:
            return {}
        out: dict[str, Any] = {"absent": {"questions": len(absent), "answered_nothing": round(
            100.0 * sum(empty for empty, _ in absent) / len(absent), 2)}}
        if any(r is not None for _, r in absent):
            out["floor_sweep"] = floor_sweep(self.relevance[method], [r for _, r in absent])
        return out


def ask(data: CodingProject, written: Replayed, calls: dict[str, Method], tally: Tally,
        rewordings: dict[tuple[str, str], list[str]] | None = None) -> None:
    """Every question of `data` through every method; with `rewordings` ((project name,
    question) -> other wordings), only the questions it rewords, each in every other wording,
    and no question about nothing stored."""
    steps = {k: s for s in data.notes for k in s.stored_keys()}
    asked = [(q, text) for q in data.questions
             for text in ([q.text] if rewordings is None
                          else rewordings.get((data.name, q.text), []))]
    for q, text in asked:
        expected = {written.ids[k] for k in q.expected}
        pairs = [(written.ids[b], written.ids[w]) for b, w in must_yield(q, steps)]
        ranks: dict[str, dict[str, int | None]] = {}
        for name, call in calls.items():
            began = time.perf_counter()
            ranked, best = call(text, written.project, q.contextual)
            tally.latency[name].append(1000.0 * (time.perf_counter() - began))
            scores = score_expected(ranked, expected, pairs)
            tally.scored[name].append((q.type, scores))
            tally.relevance[name].append((best, float(scores["hit@1"] or 0.0)))
            ranks[name] = {k: ranked.index(written.ids[k]) + 1 if written.ids[k] in ranked
                           else None for k in q.expected + q.outdated}
        tally.questions.append({"project": data.name, "type": q.type, "text": text,
                                "ranks": ranks})
    for text in data.absent if rewordings is None else []:
        for name, call in calls.items():
            ranked, best = call(text, written.project, False)
            tally.absent[name].append((not ranked, best))


def run_coding(brain: Brain, projects: list[CodingProject], calls: dict[str, Method],
               clock: ReplayClock, run_id: str, count: int, seed: int,
               keep: bool, reuse: Path | None = None, prefix: str = "bench",
               rewordings: dict[tuple[str, str], list[str]] | None = None) -> dict[str, Any]:
    """Replay and question every project (`<prefix>-coding-<run>-<name>`); the bench projects
    are deleted unless `keep`. `rewordings`: ask the questions it rewords in their other
    wordings instead (ask).
    `reuse`: a manifest of replayed projects (name -> project, note ids); a project it lists is
    questioned as stored, one it lacks is replayed, kept and added to it."""
    tally = Tally.of(list(calls))
    stats: dict[str, Any] = {}
    manifest = json.loads(reuse.read_text(encoding="utf-8")) if reuse and reuse.exists() else {}
    for data in projects:
        project = f"{prefix}-coding-{run_id}-{data.name}"
        steps = schedule(data.notes, lookalikes(data, count, seed), seed)
        stored = manifest.get(data.name)
        try:
            if stored:
                written = Replayed(stored["project"], dict(stored["ids"]))
            else:
                written = replay(brain, clock, steps,
                                 dates(steps, datetime.fromisoformat(data.start), seed),
                                 write_into(brain.db, project))
                brain.deps.index_fetch.forget(project)  # read as a fresh process reads it
            ask(data, written, calls, tally, rewordings)
        finally:
            if not (keep or reuse):
                delete_bench_project(brain.db, project)
        if reuse and not stored:
            manifest[data.name] = {"project": written.project, "ids": written.ids}
            reuse.write_text(json.dumps(manifest), encoding="utf-8")
        real = sum(len(s.stored_keys()) for s in data.notes)
        stats[data.name] = written.stats(real, sum(len(s.stored_keys()) for s in steps) - real)
        log.info("%s: %s", data.name, stats[data.name])
    return tally.result() | {"projects": stats}


def report(result: dict[str, Any]) -> str:
    """The table printed after a run: one block per method, overall then per question type."""
    lines = [f"{'method':<16}{'type':<15}{'n':>4}{'hit@1':>8}{'MRR':>8}{'all@3':>8}"
             f"{'all@5':>8}{'inverted':>10}"]
    for name, body in result["methods"].items():
        groups = [("overall", body["overall"])] + [
            (t, body["by_type"][t]) for t in QUESTION_TYPES if t in body["by_type"]]
        for group, m in groups:
            inv = f"{m['inverted']:>10.1f}" if "inverted" in m else f"{'':>10}"
            lines.append(f"{name:<16}{group:<15}{m['questions']:>4}{m['hit@1']:>8.1f}"
                         f"{m['mrr']:>8.3f}{m['all@3']:>8.1f}{m['all@5']:>8.1f}{inv}")
        lat = body.get("latency_ms", {})
        lines.append(f"{name:<16}latency ms p50 {lat.get('p50')} p95 {lat.get('p95')}")
    lines.append("history: hit@1 is the old note first. inverted: current_value, the outdated "
                 "note above the current one; symptom_fix, the mistake above its fix")
    return "\n".join(lines + floor_report(result))


def floor_report(result: dict[str, Any]) -> list[str]:
    """Questions about nothing stored, per method; the floor sweep of the searches without one."""
    lines = []
    for name, body in result["methods"].items():
        if "absent" in body:
            a = body["absent"]
            lines.append(f"{name:<24}about nothing stored: {a['answered_nothing']:.1f}% of "
                         f"{a['questions']} answered with nothing")
        swept = name.endswith("_nofloor") or name == "fusion"
        for row in body.get("floor_sweep", []) if swept else []:
            lines.append(f"{name:<24}floor {row['floor']:.2f}: nothing for "
                         f"{row['absent_nothing']:.1f}% of them, hit@1 {row['hit@1']:.1f}")
    return lines
