"""What a note is made of when it is written: its stored row, the text its vector encodes, and
the details that tell two alike notes apart."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from kg_brain.base.vocab import CONTEXTUAL_KINDS, MemoryType, NoteKind
from kg_brain.enrichment.embed.base import Embedder
from kg_brain.enrichment.llm.types import Enrichment, EntityRef

# Where a note's content breaks into the sentences search re-scores it by: after . ! ? or ;
# and at every line break.
_SENTENCE_BREAK = re.compile(r"(?<=[.!?;])\s+|\n+")
# A note's vector and its sentences' vectors (embed_notes).
NoteVectors = tuple[list[float], list[list[float]]]
_DETAIL = re.compile(r"\d+(?:[.:,/-]\d+)*|\b\w*(?:[_./]\w+)+\b|\b[a-z]+[A-Z]\w*\b|\b[A-Z]{2,}\w*\b")


def embed_text(title: str, content: str, context: str) -> str:
    """What a note's vector encodes: the seed's content + context, led by the title claim
    unless the content already states it (a heuristic title is the first sentence: encoding it
    twice costs embedding time and tilts the vector towards that sentence)."""
    lead = title if title and _squash(title) not in _squash(content) else ""
    return "\n".join(part for part in (lead, content, context) if part)


def sentences(title: str, content: str) -> list[str]:
    """The parts of a note search re-scores it by (fragments/nearest_in_project): the title
    when the content does not state it, then each sentence of the content; the context is none
    of them (it speaks of other notes)."""
    lead = [title] if title and _squash(title) not in _squash(content) else []
    return lead + [s.strip() for s in _SENTENCE_BREAK.split(content) if _squash(s)]


def embed_notes(embedder: Embedder, notes: Sequence[tuple[str, str, str]]
                ) -> list[NoteVectors]:
    """Each note's vector (of embed_text) and its sentences' vectors, for (title, content,
    context) triples, in one encode_many call."""
    texts: list[str] = []
    spans: list[tuple[int, int]] = []
    for title, content, context in notes:
        parts = sentences(title, content)
        spans.append((len(texts), len(parts)))
        texts += [embed_text(title, content, context), *parts]
    vectors = embedder.encode_many(texts) if texts else []
    return [(vectors[at], vectors[at + 1:at + 1 + n]) for at, n in spans]


def _squash(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def details(text: str) -> Counter[str]:
    """The specifics two otherwise alike texts can differ in: numbers, versions, paths,
    identifiers and acronyms."""
    return Counter(m.group(0).lower() for m in _DETAIL.finditer(text))


def note_row(zk_id: str, text: str, project: str, mtype: MemoryType, kind: NoteKind,
             pinned: bool, e: Enrichment, vector: list[float],
             parts: list[list[float]] | None, now: Any) -> dict[str, Any]:
    """Every property of a new note, as create_notes writes it, and its sentences' vectors
    (`sentences`: no property, written as Sentence nodes; None: its sentences job writes
    them)."""
    return {
        "zk_id": zk_id, "title": e.title, "content": text, "context": e.context,
        "keywords": e.keywords, "tags": e.tags, "memory_type": mtype.value,
        "note_kind": kind.value, "pinned": bool(pinned), "project": project,
        "created": now, "updated": now, "access_count": 0, "embedding": vector,
        "entities": mention_list(e.entities), "sentences": parts,
    }


def stored_kind(given: NoteKind, inferred: str) -> NoteKind:
    """The kind a written note keeps: the caller's, else the one read from its text, except a
    contextual kind (session summary, open thread, project context): those are hidden from
    search and replaced at each handoff, so only the session tools write them."""
    if given is not NoteKind.GENERAL:
        return given
    kind = NoteKind(inferred)
    return NoteKind.GENERAL if kind in CONTEXTUAL_KINDS else kind


def mention_list(refs: list[EntityRef]) -> list[dict[str, str]]:
    """The entities a note mentions, as replace_mentions takes them."""
    return [ref.model_dump(mode="json") for ref in refs]
