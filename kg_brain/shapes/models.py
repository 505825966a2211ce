"""The shapes domain operations return (and the MCP tools serialise): notes, links, hits."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field, model_serializer


def iso(value: Any) -> str | None:
    """Neo4j DateTime / Python datetime -> ISO-8601 string (the seed's payload format)."""
    if value is None:
        return None
    if hasattr(value, "to_native"):
        value = value.to_native()
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value)


class LinkView(BaseModel):
    zk_id: str = Field(description="the other note")
    type: str = Field(description="relationship type, e.g. FIXES")
    direction: str = Field(description="'out' (this note -> other) or 'in'")
    reason: str = ""
    weight: float = 0.0
    title: str = ""


class EntityView(BaseModel):
    """Something a note is about: canonical key, name as written, kind, and how many live notes
    of the project mention it (the fewer, the more it says about a note)."""

    key: str
    name: str
    kind: str
    notes: int = 0


class NoteView(BaseModel):
    """A full note: the seed's payload schema; `links` derived from typed relationships,
    `entities` from MENTIONS, rarest first."""

    zk_id: str
    title: str
    content: str
    context: str
    keywords: list[str]
    tags: list[str]
    links: list[LinkView] = Field(default_factory=list)
    entities: list[EntityView] = Field(default_factory=list)
    memory_type: str
    note_kind: str
    pinned: bool
    project: str
    created: str | None
    updated: str | None
    access_count: int
    last_accessed: str | None
    failure_signature: str | None = None
    session_id: str | None = Field(None, description="the client session that wrote it")

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> NoteView:
        """Build from a row with a `note` map (properties) and optional `links` list."""
        n = row["note"]
        return cls(
            zk_id=n["zk_id"], title=n.get("title") or "", content=n["content"],
            context=n.get("context") or "", keywords=list(n.get("keywords") or []),
            tags=list(n.get("tags") or []),
            links=[LinkView(**link) for link in row.get("links") or [] if link.get("zk_id")],
            entities=[EntityView(**e) for e in row.get("entities") or []],
            memory_type=n["memory_type"], note_kind=n["note_kind"], pinned=bool(n.get("pinned")),
            project=n["project"], created=iso(n.get("created")), updated=iso(n.get("updated")),
            access_count=int(n.get("access_count") or 0), last_accessed=iso(n.get("last_accessed")),
            failure_signature=n.get("failure_signature"), session_id=n.get("session_id"),
        )


class FoundBy(BaseModel):
    """How a search result was reached: hop, channel, and the path that led to it. Sent as one
    short text ("vector", "lexical hop 1", "link FIXES from ZK-...", "bridge 'redis' from
    ZK-..."): provenance should not outweigh the content it explains."""

    hop: int
    channel: str = Field(
        description="vector | lexical | exact | entity | bridge | link | session")
    via: str | None = Field(None, description="note whose hit or neighbourhood led here")
    relationship: str | None = Field(None, description="relationship type for graph hits")
    entity: str | None = Field(None, description="the entity that led here (entity, bridge)")

    @model_serializer(mode="plain")
    def _compact(self) -> str:
        parts = [self.channel, f"hop {self.hop}" if self.hop else "", self.relationship or "",
                 f"'{self.entity}'" if self.entity else "", f"from {self.via}" if self.via else ""]
        return " ".join(p for p in parts if p and p != "MENTIONS")


class HitLink(BaseModel):
    """A link as a hit carries it: the other note and the relationship, nothing more (recall
    and get_related give titles and reasons). Sent as one text: "FIXES>ZK-..." for a link
    from the hit to the other note, "FIXES<ZK-..." for one from the other note to the hit."""

    zk_id: str
    type: str
    direction: str = Field(description="'out' (this note -> other) or 'in'")

    @model_serializer(mode="plain")
    def _compact(self) -> str:
        return f"{self.type}{'>' if self.direction == 'out' else '<'}{self.zk_id}"


class Hit(BaseModel):
    """A search result, best first: a preview (`recall(zk_ids)` returns the full note), its
    relevance (comparable across queries), at most a few links (typed before similarity
    links) and how many it has in all."""

    zk_id: str
    title: str
    score: float = Field(exclude=True)  # the fused rank, scaled per query: the order says it
    relevance: float = Field(0.0, description=(
        "the note's cosine to the query, in [-1, 1], comparable across queries"))
    preview: str
    note_kind: str
    project: str = Field(exclude=True)  # the answer names it once
    links: list[HitLink] = Field(default_factory=list, description=(
        "its most telling links: TYPE>id from this note, TYPE<id to it"))
    link_count: int = Field(0, description=(
        "all its links; get_related lists them (full tool profile)"))
    found_by: list[FoundBy] = Field(default_factory=list, description=(
        "how it was found: a channel (vector, lexical, exact, entity, bridge, link, session), "
        "its hop after the first, the relationship or entity and the note that led there"))


class NotePreview(BaseModel):
    """A note as a listing shows it: metadata and the first characters of its content."""

    zk_id: str
    title: str
    preview: str
    note_kind: str
    memory_type: str
    pinned: bool
    tags: list[str] = Field(default_factory=list)
    created: str | None
    updated: str | None
