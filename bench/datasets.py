"""Benchmark data readers: LoCoMo conversations and the MuSiQue multi-hop subset.

Nothing here knows any particular file: conversations, sessions, turns and evidence are read from
the format alone, so the same code runs on the public file and on held-out ones.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

from kg_brain.base.errors import InvalidInput

_DIA = re.compile(r"D:?(\d+):(\d+)")
_SESSION = re.compile(r"^session_(\d+)$")
TurnKey = tuple[int, int]
SPLITS = ("tune", "check", "all")
SPLIT_SEED = 32  # fixed once: changing it would let a split be chosen by its results
T = TypeVar("T")


@dataclass
class Turn:
    key: TurnKey
    speaker: str
    text: str
    date: str
    session: int


@dataclass
class Question:
    text: str
    category: str
    evidence: list[Any]  # turn keys (LoCoMo) or passage indexes (MuSiQue)


@dataclass
class Corpus:
    """One retrieval unit set (a conversation, or a pooled passage corpus) and its questions."""

    turns: list[Turn] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)
    participants: tuple[str, ...] = ()


def dia_keys(raw: Any) -> list[TurnKey]:
    """Evidence ids as turn keys, tolerating the file's quirks ("D8:6; D9:17", "D:11:26",
    "D30:05", space-joined lists): split on ; , and whitespace, leading zeros dropped."""
    keys: list[TurnKey] = []
    for part in re.split(r"[;,\s]+", str(raw)):
        match = _DIA.fullmatch(part.strip())
        if match:
            keys.append((int(match.group(1)), int(match.group(2))))
    return keys


def load_locomo(path: Path) -> list[Corpus]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, list):
        raise InvalidInput(f"{path}: expected a JSON list of conversations")
    return [_conversation(record) for record in data]


def _conversation(record: dict[str, Any]) -> Corpus:
    conv = record["conversation"]
    corpus = Corpus(participants=(str(conv.get("speaker_a", "")), str(conv.get("speaker_b", ""))))
    sessions = sorted(int(m.group(1)) for k in conv if (m := _SESSION.match(k)))
    for number in sessions:
        date = str(conv.get(f"session_{number}_date_time") or "")
        for turn in conv.get(f"session_{number}") or []:
            keys = dia_keys(turn.get("dia_id", ""))
            text = str(turn.get("text") or "").strip()
            if turn.get("blip_caption"):
                text = f"{text} [{turn['speaker']} shared {turn['blip_caption']}]".strip()
            if keys and text:
                corpus.turns.append(Turn(keys[0], str(turn["speaker"]), text, date, number))
    for qa in record.get("qa") or []:
        evidence = [key for raw in qa.get("evidence") or [] for key in dia_keys(raw)]
        corpus.questions.append(Question(str(qa["question"]), str(qa["category"]), evidence))
    return corpus


def load_musique(questions_path: Path, corpus_path: Path) -> Corpus:
    """The pooled passages as turns of one corpus; evidence = the supporting passages' indexes."""
    passages = json.loads(corpus_path.read_text(encoding="utf-8"))
    index = {(p["title"], p["text"]): i for i, p in enumerate(passages)}
    corpus = Corpus(turns=[Turn((0, i), p["title"], p["text"], "", 0)
                           for i, p in enumerate(passages)])
    for q in json.loads(questions_path.read_text(encoding="utf-8")):
        support = [index.get((p["title"], p["paragraph_text"])) for p in q["paragraphs"]
                   if p.get("is_supporting")]
        hops = str(q.get("id", "")).split("__", 1)[0] or "all"
        corpus.questions.append(Question(q["question"], hops,
                                         [(0, i) for i in support if i is not None]))
    return corpus


def split(items: list[T], part: str, seed: int = SPLIT_SEED) -> list[T]:
    """The `tune` or `check` half of `items` (or `all`), in their order: a seeded shuffle of the
    positions, the first half (rounded down) tuning, the rest checking. Positions only, never ids
    or texts, so any file of the format splits the same way."""
    if part not in SPLITS:
        raise InvalidInput(f"unknown split {part!r}; known: {', '.join(SPLITS)}")
    if part == "all":
        return list(items)
    order = random.Random(seed).sample(range(len(items)), len(items))
    chosen = set(order[:len(items) // 2] if part == "tune" else order[len(items) // 2:])
    return [item for i, item in enumerate(items) if i in chosen]


def split_corpora(corpora: list[Corpus], part: str, by_question: bool) -> list[Corpus]:
    """LoCoMo splits by conversation; a pooled corpus (MuSiQue) keeps every passage and splits
    its questions."""
    if by_question:
        return [replace(c, questions=split(c.questions, part)) for c in corpora]
    return split(corpora, part)
