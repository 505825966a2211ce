"""Conversation and passage import through the real bulk write path (`Memory.add_many`).

A conversation import writes one note per turn: the speaker's words as content, the speaker and
session date as title, the setting and the turn it answers as context, and links each turn to the
one before it in its session (RELATES_TO), the structure any transcript import creates.
"""

from __future__ import annotations

import logging
from typing import Any

from kg_brain.app import Brain
from kg_brain.bench.datasets import Corpus, Turn, TurnKey
from kg_brain.store.links import merge_links

log = logging.getLogger(__name__)
FOLLOWS_WEIGHT = 0.5
REPLY_CHARS = 200


def turn_record(turn: Turn, previous: Turn | None, corpus: Corpus, project: str,
                with_reply: bool) -> dict[str, Any]:
    if not turn.date:  # a passage, not a conversation turn
        return {"content": turn.text, "title": turn.speaker, "context": "", "project": project}
    setting = f"Said in a conversation between {' and '.join(p for p in corpus.participants if p)}" \
              f" on {turn.date}."
    if with_reply and previous is not None:
        setting += f" In reply to {previous.speaker}: {previous.text[:REPLY_CHARS]}"
    return {"content": f"{turn.speaker}: {turn.text}", "title": f"{turn.speaker} on {turn.date}",
            "context": setting, "keywords": [turn.speaker], "tags": ["conversation"],
            "project": project}


def import_corpus(brain: Brain, corpus: Corpus, project: str,
                  with_reply: bool = True) -> dict[TurnKey, str]:
    """Write the notes in bulk, then the follows-links in one batch; returns turn key -> zk_id."""
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
        {"src": ids[i], "dst": ids[i - 1], "type": "RELATES_TO",
         "reason": "follows in the conversation", "weight": FOLLOWS_WEIGHT}
        for i in range(1, len(corpus.turns))
        if corpus.turns[i].date and corpus.turns[i].session == corpus.turns[i - 1].session
    ]
    for start in range(0, len(links), 1000):
        merge_links(brain.db, rows=links[start:start + 1000], now=brain.clock())
    log.info("imported %d notes and %d links into %s", len(ids), len(links), project)
    return by_key
