"""Writing benchmark corpora into a project, through either of two real write paths.

`import`: the bulk import (`Importer.add_many`). One note per turn: the speaker's words as content,
the speaker and session date as title, the setting and the turn it answers as context, and a
FOLLOWS link from each turn to the one before it in its session, the session order add_memory
writes too.
`add`: every turn through add_memory one after the other, as an agent would store it: enrichment,
dedup, typed links to the notes before it and evolution jobs, which this process applies after
each write (as a server's scheduler would, a few seconds later; applying them here also keeps
workers of other processes sharing the database from taking most of them), waiting out any job
another process holds, so every job is applied before the next write whoever takes it and two
writes of the same turns under one project name store the same notes. Each dated session of
a conversation is one client session (its turns FOLLOW one another); passages name none.
Nothing is batched: each write depends on the notes written before it.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from bench import store
from bench.datasets import Corpus, Turn, TurnKey
from kg_brain.base.vocab import FOLLOWS_REASON, LinkType
from kg_brain.root.app import Brain
from kg_brain.store.db import outlast
from kg_brain.store.links import merge_links

log = logging.getLogger(__name__)
REPLY_CHARS = 200
WRITE_PATHS = ("import", "add")
DRAIN_BATCH = 50
DRAIN_WAIT_S = 300.0  # a job claimed by another process is released after 2 minutes
DRAIN_POLL_S = 5.0


def turn_record(turn: Turn, previous: Turn | None, corpus: Corpus, project: str,
                with_reply: bool) -> dict[str, Any]:
    if not turn.date:  # a passage, not a conversation turn
        return {"content": turn.text, "title": turn.speaker, "context": "", "project": project}
    speakers = " and ".join(p for p in corpus.participants if p)
    setting = f"Said in a conversation between {speakers} on {turn.date}."
    if with_reply and previous is not None:
        setting += f" In reply to {previous.speaker}: {previous.text[:REPLY_CHARS]}"
    return {"content": f"{turn.speaker}: {turn.text}", "title": f"{turn.speaker} on {turn.date}",
            "context": setting, "keywords": [turn.speaker], "tags": ["conversation"],
            "project": project}


def import_corpus(brain: Brain, corpus: Corpus, project: str,
                  with_reply: bool = True) -> dict[TurnKey, str]:
    """Write the notes in bulk, then the follows-links in one batch, then run the sentences jobs
    the import queued (as the scheduler would); returns turn key -> zk_id."""
    records = []
    previous: Turn | None = None
    for turn in corpus.turns:
        same_session = previous is not None and previous.session == turn.session and turn.date
        records.append(turn_record(turn, previous if same_session else None, corpus, project,
                                   with_reply))
        previous = turn
    ids = brain.importer.add_many(records)
    by_key = {turn.key: zk for turn, zk in zip(corpus.turns, ids, strict=True)}
    links = [
        {"src": ids[i], "dst": ids[i - 1], "type": LinkType.FOLLOWS.value,
         "reason": FOLLOWS_REASON, "weight": 1.0, "origin": "auto"}
        for i in range(1, len(corpus.turns))
        if corpus.turns[i].date and corpus.turns[i].session == corpus.turns[i - 1].session
    ]
    for start in range(0, len(links), 1000):
        merge_links(brain.db, rows=links[start:start + 1000], now=brain.clock())
    run_sentences(brain, project)
    log.info("imported %d notes and %d links into %s", len(ids), len(links), project)
    return by_key


def add_content(turn: Turn) -> str:
    """What an agent storing the turn would write: who said it, when, and what."""
    if not turn.date:  # a passage: its title leads
        return f"{turn.speaker}: {turn.text}"
    return f"{turn.speaker} ({turn.date}): {turn.text}"


def add_corpus(brain: Brain, corpus: Corpus, project: str) -> dict[TurnKey, str]:
    """Every turn through add_memory in order, each write's evolution jobs applied before the
    next; returns turn key -> zk_id (a turn merged into an earlier note maps to that note)."""
    by_key: dict[TurnKey, str] = {}
    merged = evolved = 0
    for turn in corpus.turns:  # an hour of writes waits out a database that goes away
        session = f"{project}-session-{turn.session}" if turn.date else None
        added = outlast(lambda t=turn, s=session: brain.writer.add(add_content(t), project,
                                                                    session_id=s), "bench write")
        by_key[turn.key] = added.note.zk_id
        merged += added.deduplicated
        evolved += outlast(lambda: drain_evolution(brain, project), "bench evolution")
    run_sentences(brain, project)
    log.info("added %d turns into %s (%d merged into earlier notes), evolution jobs: %d applied "
             "here of %d", len(corpus.turns), project, merged, evolved,
             evolution_jobs(brain, project))
    return by_key


def run_evolution(brain: Brain, project: str) -> int:
    """What a scheduler tick does, for one project: apply its pending evolution jobs."""
    applied = 0
    while done := brain.evolution.process(limit=DRAIN_BATCH, project=project):
        applied += done
    return applied


def run_sentences(brain: Brain, project: str) -> int:
    """What the scheduler's sentences drain does, for one project: the sentence vectors of the
    notes written (memory/sentences.py); returns how many notes' jobs ran."""
    ran = 0
    while done := outlast(lambda: brain.sentence_jobs.process(DRAIN_BATCH, project),
                          "bench sentences"):
        ran += done
    return ran


def evolution_jobs(brain: Brain, project: str) -> int:
    return len(store.stress_jobs(brain.db, project=project, kind="evolve"))


def drain_evolution(brain: Brain, project: str) -> int:
    """Apply the project's pending evolution jobs until none is left (waiting out jobs another
    process holds, up to DRAIN_WAIT_S); returns how many were applied here."""
    applied = 0
    deadline = time.monotonic() + DRAIN_WAIT_S
    while True:
        applied += run_evolution(brain, project)
        pending = sum(j["state"] == "pending"
                      for j in store.stress_jobs(brain.db, project=project, kind="evolve"))
        if not pending:
            return applied
        if time.monotonic() > deadline:
            log.warning("%s: %d evolution jobs still pending", project, pending)
            return applied
        time.sleep(DRAIN_POLL_S)


def write_corpus(brain: Brain, corpus: Corpus, project: str, path: str,
                 with_reply: bool = True) -> dict[TurnKey, str]:
    if path == "add":
        return add_corpus(brain, corpus, project)
    return import_corpus(brain, corpus, project, with_reply=with_reply)
