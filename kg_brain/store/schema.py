"""The graph's schema: the node model neomodel installs (uniqueness, range indexes), the rest
from `cypher/schema/` (the 384-d cosine vector index among them), and the idempotent bootstrap.

Reads and writes go through the typed statements of this package; this model is the schema's
single definition and documents each field.
"""

from __future__ import annotations

import io
import logging

from neomodel import (
    ArrayProperty,
    BooleanProperty,
    DateTimeNeo4jFormatProperty,
    FloatProperty,
    IntegerProperty,
    StringProperty,
    StructuredNode,
)
from neomodel import db as neomodel_db

from kg_brain.base.vocab import (
    EMBEDDING_DIM,
    ENTITY_INDEX,
    FULLTEXT_INDEX,
    VECTOR_INDEX,
    WORD_INDEX,
    MemoryType,
    NoteKind,
)
from kg_brain.store import admin
from kg_brain.store.db import Database, mapped_errors
from kg_brain.store.statement import On, autocommit

log = logging.getLogger(__name__)


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
    session_id = StringProperty()  # the client session that wrote it: the session order
    archived_at = DateTimeNeo4jFormatProperty()
    archive_reason = StringProperty()
    # EMBEDDING_DIM floats; the vector index over it is cypher/schema/create_vector_index (or,
    # on Neo4j's 2026 line, create_filtered_vector_index, which declares the project too)
    embedding = ArrayProperty(FloatProperty())


SCHEMA_MODELS = (Note,)
# Every index the bootstrap creates (neomodel's names for the model, then cypher/schema/).
SCHEMA_INDEXES = frozenset({
    "constraint_unique_Note_zk_id", VECTOR_INDEX, "index_Note_project", "index_Note_memory_type",
    "index_Note_note_kind", "index_Note_last_accessed", "index_Note_failure_signature",
    FULLTEXT_INDEX, WORD_INDEX, "job_key", "job_kind_state", "job_claim_order",
    "job_project_claim_order", "lease_name", "revision_zk_id",
    "entity_key", ENTITY_INDEX, "forgotten_zk_id", "note_session_created",
    "plugin_session_id", "command_run_key", "project_id", "project_key",
})
# The note full-text index's fields (cypher/schema/create_fulltext_index.cypher): an index over
# other fields (one created before the project was indexed) is dropped and created again.
FULLTEXT_FIELDS = frozenset({"title", "content", "context", "keywords", "project"})
# The vector index's properties on Neo4j's 2026 line (the embedding, and the project it filters
# on); an index without the project is dropped and created again.
FILTERED_VECTOR_FIELDS = ["embedding", "project"]


@autocommit("schema/create_fulltext_index.cypher")
def create_fulltext_index(on: On) -> None:
    """BM25 over title, content, context and keywords (english analyzer)."""


@autocommit("schema/create_vector_index.cypher")
def create_vector_index(on: On, *, dimensions: int) -> None:
    """Cosine over the embedding (Neo4j 5.26)."""


@autocommit("schema/create_filtered_vector_index.cypher")
def create_filtered_vector_index(on: On, *, dimensions: int) -> None:
    """Cosine over the embedding, declaring the project to filter on (Neo4j's 2026 line)."""


@autocommit("schema/drop_vector_index.cypher")
def drop_vector_index(on: On) -> None:
    """The vector index, to create it again declaring the project."""


@autocommit("schema/create_word_index.cypher")
def create_word_index(on: On) -> None:
    """BM25 over the same fields, words as written (no stemming)."""


@autocommit("schema/drop_fulltext_index.cypher")
def drop_fulltext_index(on: On) -> None:
    """The note full-text index, to create it again over today's fields."""


@autocommit("schema/create_job_index.cypher")
def create_job_index(on: On) -> None:
    """Unique job keys."""


@autocommit("schema/create_job_state_index.cypher")
def create_job_state_index(on: On) -> None:
    """Jobs by kind and state."""


@autocommit("schema/create_job_claim_index.cypher")
def create_job_claim_index(on: On) -> None:
    """A kind's jobs in a state, oldest first (the claim's order)."""


@autocommit("schema/create_job_project_claim_index.cypher")
def create_job_project_claim_index(on: On) -> None:
    """The same within one project."""


@autocommit("schema/create_lease_constraint.cypher")
def create_lease_constraint(on: On) -> None:
    """Unique lease names."""


@autocommit("schema/create_revision_index.cypher")
def create_revision_index(on: On) -> None:
    """Revisions by note id."""


@autocommit("schema/create_entity_constraint.cypher")
def create_entity_constraint(on: On) -> None:
    """One entity per (project, key)."""


@autocommit("schema/create_entity_fulltext_index.cypher")
def create_entity_fulltext_index(on: On) -> None:
    """Entity names and keys, for questions that name things."""


@autocommit("schema/create_forgotten_constraint.cypher")
def create_forgotten_constraint(on: On) -> None:
    """One tombstone per forgotten zk_id."""


@autocommit("schema/create_session_order_index.cypher")
def create_session_order_index(on: On) -> None:
    """Notes by (client session, creation time): the session order."""


@autocommit("schema/create_plugin_session_constraint.cypher")
def create_plugin_session_constraint(on: On) -> None:
    """One record per OpenCode session the plugin serves."""


@autocommit("schema/create_command_run_index.cypher")
def create_command_run_index(on: On) -> None:
    """Commands' last outcomes by project and key."""


@autocommit("schema/create_project_id_constraint.cypher")
def create_project_id_constraint(on: On) -> None:
    """One Project node per workspace identity."""


@autocommit("schema/create_project_key_constraint.cypher")
def create_project_key_constraint(on: On) -> None:
    """One workspace identity per project key."""


@autocommit("schema/await_indexes.cypher")
def await_indexes(on: On) -> None:
    """Until every index is online."""


STATEMENTS = (create_fulltext_index, create_word_index, create_job_index, create_job_state_index,
              create_job_claim_index, create_job_project_claim_index,
              create_lease_constraint, create_revision_index, create_entity_constraint,
              create_entity_fulltext_index, create_forgotten_constraint,
              create_session_order_index, create_plugin_session_constraint,
              create_command_run_index, create_project_id_constraint,
              create_project_key_constraint)


def bootstrap_schema(db: Database) -> None:
    """Idempotent: neomodel installs the node model's constraints and indexes, the rest
    (vector, multi-property full-text, relationship and job indexes) comes from
    `cypher/schema/`. A note full-text index over other fields than FULLTEXT_FIELDS is built
    again (the upgrade of a database made before the project was indexed), and so is, on
    Neo4j's 2026 line, a vector index that does not declare the project (a database made
    before); searches wait until they are online."""
    present = {row["name"]: row for row in admin.list_indexes(db)}
    fulltext = present.get(FULLTEXT_INDEX)
    stale = fulltext is not None and set(fulltext["properties"] or ()) != FULLTEXT_FIELDS
    vector = present.get(VECTOR_INDEX)
    filtered = db.line is not None  # every line of its own (2026) filters in the vector index
    unfiltered = filtered and vector is not None and vector["properties"] != FILTERED_VECTOR_FIELDS
    if SCHEMA_INDEXES <= present.keys() and not stale and not unfiltered:
        return  # schema commands take exclusive locks: skip them when nothing is missing
    if stale:
        log.info("rebuilding the note full-text index over %s", sorted(FULLTEXT_FIELDS))
        drop_fulltext_index(db)
    if unfiltered:
        log.info("rebuilding the note vector index to filter on the project")
        drop_vector_index(db)
    if filtered:
        create_filtered_vector_index(db, dimensions=EMBEDDING_DIM)
    else:
        create_vector_index(db, dimensions=EMBEDDING_DIM)
    with mapped_errors(db.conn):
        neomodel_db.set_connection(driver=db.driver)
        sink = io.StringIO()  # neomodel reports "already exists" here; stdout is MCP's
        for model in SCHEMA_MODELS:
            neomodel_db.install_labels(model, quiet=True, stdout=sink)
    for create in STATEMENTS:
        create(db)
    await_indexes(db)
    log.debug("schema bootstrap done")
