"""The enrichment contract: what every enricher (heuristic or LLM-backed) takes and returns."""

from __future__ import annotations

from enum import StrEnum
from typing import Protocol

from pydantic import BaseModel, Field

from kg_brain.base.vocab import LinkType


class EntityKind(StrEnum):
    """The closed vocabulary of what a note can be about (or state a value of)."""

    IDENTIFIER = "identifier"  # code names: snake_case, CamelCase, dotted
    FILE = "file"
    ENV_VAR = "env_var"
    SERVICE = "service"  # a running part of a system: "payment worker", "order-api", Redis
    HOST = "host"
    PORT = "port"
    VERSION = "version"
    ERROR = "error"  # exception names, errno codes, HTTP and exit statuses
    LIBRARY = "library"
    TOOL = "tool"
    PERSON = "person"
    PROPER_NOUN = "proper_noun"
    DATE = "date"
    URL = "url"
    SETTING = "setting"  # configuration keys and command-line flags
    PHRASE = "phrase"  # a multi-word key phrase


class EntityRef(BaseModel):
    """One thing a note mentions: `key` is canonical (one thing, one key), `name` as written."""

    key: str = Field(min_length=1)
    name: str = Field(min_length=1)
    kind: EntityKind


class Enrichment(BaseModel):
    """The generated part of a note's payload: a claim title, why it matters, search terms,
    the entities it mentions and its kind (the caller's, or inferred when it gave `general`)."""

    title: str
    context: str
    keywords: list[str]
    tags: list[str]
    entities: list[EntityRef] = []
    note_kind: str = "general"


class Candidate(BaseModel):
    """An existing note offered as a possible link target, with its similarity to the new note."""

    zk_id: str
    title: str
    content: str
    note_kind: str
    similarity: float
    entities: list[str] = []  # entity keys


class NoteDraft(BaseModel):
    """The fields of a note an enricher reasons about (no ids, no vectors)."""

    title: str
    content: str
    context: str = ""
    note_kind: str = "general"
    entities: list[str] = []  # entity keys


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


class SessionDigest(BaseModel):
    """What a session did, as a handoff's sections: a faithful extract, or a model's summary."""

    objective: str
    completed: list[str]
    blockers: list[str]
    next_steps: list[str]


class Enricher(Protocol):
    """Builds and relates notes; the heuristic and the LLM router both satisfy it."""

    name: str

    def enrich(self, content: str, note_kind: str, project: str) -> Enrichment: ...

    def decide_links(self, note: NoteDraft, candidates: list[Candidate]) -> list[LinkDecision]: ...

    def evolve_context(self, old: NoteDraft, new: NoteDraft, link_type: LinkType) -> str | None: ...

    def synthesize(self, notes: list[NoteDraft]) -> Synthesis: ...

    def split_atomic(self, text: str) -> list[str]: ...

    def summarize_session(self, extract: SessionDigest, requests: list[str]) -> SessionDigest: ...
