"""The graph's node model, for neomodel to install constraints and indexes.

Reads and writes go through the named statements in `cypher/`; this model is the schema's single
definition (uniqueness, range indexes, the 384-d cosine vector index) and documents each field.
"""

from __future__ import annotations

from enum import StrEnum

from neomodel import (
    ArrayProperty,
    BooleanProperty,
    DateTimeNeo4jFormatProperty,
    FloatProperty,
    IntegerProperty,
    StringProperty,
    StructuredNode,
    VectorIndex,
)

EMBEDDING_DIM = 384
VECTOR_INDEX = "vector_index_Note_embedding"
FULLTEXT_INDEX = "note_fulltext"


class MemoryType(StrEnum):
    FLEETING = "fleeting"
    PERMANENT = "permanent"
    ARCHIVED = "archived"


class NoteKind(StrEnum):
    MISTAKE = "mistake"
    FIX = "fix"
    PATTERN = "pattern"
    RESEARCH = "research"
    DECISION = "decision"
    GENERAL = "general"
    OPEN_THREAD = "open_thread"
    SESSION_SUMMARY = "session_summary"
    PROJECT_CONTEXT = "project_context"


CONTEXTUAL_KINDS = (NoteKind.SESSION_SUMMARY, NoteKind.OPEN_THREAD, NoteKind.PROJECT_CONTEXT)


class LinkType(StrEnum):
    """The closed vocabulary of typed relationships between notes."""

    RELATES_TO = "RELATES_TO"
    SUPPORTS = "SUPPORTS"
    EXTENDS = "EXTENDS"
    CONTRADICTS = "CONTRADICTS"
    CAUSED_BY = "CAUSED_BY"
    FIXES = "FIXES"
    SUPERSEDES = "SUPERSEDES"
    PART_OF = "PART_OF"


class Note(StructuredNode):
    """A Zettelkasten note: the seed's payload plus its embedding and lifecycle fields."""

    zk_id = StringProperty(unique_index=True, required=True)  # ZK-<8 hex>
    title = StringProperty()  # one atomic claim
    content = StringProperty(required=True)
    context = StringProperty()  # why it matters; evolves
    keywords = ArrayProperty(StringProperty())
    tags = ArrayProperty(StringProperty())
    memory_type = StringProperty(index=True, choices={m.value: m.value for m in MemoryType})
    note_kind = StringProperty(index=True, choices={k.value: k.value for k in NoteKind})
    pinned = BooleanProperty(default=False)
    project = StringProperty(index=True, required=True)
    created = DateTimeNeo4jFormatProperty()
    updated = DateTimeNeo4jFormatProperty()
    access_count = IntegerProperty(default=0)
    last_accessed = DateTimeNeo4jFormatProperty(index=True)  # null until first retrieval
    failure_signature = StringProperty(index=True)  # mistakes only: normalised signature
    archived_at = DateTimeNeo4jFormatProperty()
    archive_reason = StringProperty()
    embedding = ArrayProperty(
        FloatProperty(), vector_index=VectorIndex(dimensions=EMBEDDING_DIM, similarity_function="cosine")
    )


SCHEMA_MODELS = (Note,)
# Every index the bootstrap creates (neomodel's names for the model, then cypher/schema/).
SCHEMA_INDEXES = frozenset({
    "constraint_unique_Note_zk_id", VECTOR_INDEX, "index_Note_project", "index_Note_memory_type",
    "index_Note_note_kind", "index_Note_last_accessed", "index_Note_failure_signature",
    FULLTEXT_INDEX, "job_key", "job_kind_state", "lease_name", "revision_zk_id",
})
