"""The enrichment contract: what every enricher (heuristic or LLM-backed) takes and returns."""

from __future__ import annotations

from typing import Protocol

from pydantic import BaseModel, Field

from kg_brain.vocab import LinkType


class Enrichment(BaseModel):
    """The generated part of a note's payload: a claim title, why it matters, search terms."""

    title: str
    context: str
    keywords: list[str]
    tags: list[str]


class Candidate(BaseModel):
    """An existing note offered as a possible link target, with its similarity to the new note."""

    zk_id: str
    title: str
    content: str
    note_kind: str
    similarity: float


class NoteDraft(BaseModel):
    """The fields of a note an enricher reasons about (no ids, no vectors)."""

    title: str
    content: str
    context: str = ""
    note_kind: str = "general"


class LinkDecision(BaseModel):
    """A typed link from the new note to a candidate; weight in [0, 1]."""

    zk_id: str
    link_type: LinkType
    reason: str
    weight: float = Field(ge=0.0, le=1.0)


class Synthesis(BaseModel):
    """One note that replaces a cluster of overlapping notes."""

    title: str
    content: str
    context: str
    keywords: list[str]
    tags: list[str]


class Enricher(Protocol):
    """Builds and relates notes; the heuristic and the LLM router both satisfy it."""

    name: str

    def enrich(self, content: str, note_kind: str, project: str) -> Enrichment: ...

    def decide_links(self, note: NoteDraft, candidates: list[Candidate]) -> list[LinkDecision]: ...

    def evolve_context(self, old: NoteDraft, new: NoteDraft, link_type: LinkType) -> str | None: ...

    def synthesize(self, notes: list[NoteDraft]) -> Synthesis: ...

    def split_atomic(self, text: str) -> list[str]: ...
