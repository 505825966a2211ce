"""The closed vocabularies every layer shares: memory types, note kinds, link types, and the
fixed facts of the stored graph (embedding size, index names).

This module imports nothing of the project, so the domain, the store, the enrichers and the
views all read the same definitions without depending on one another.
"""

from __future__ import annotations

from enum import StrEnum

EMBEDDING_DIM = 384
VECTOR_INDEX = "vector_index_Note_embedding"
FULLTEXT_INDEX = "note_fulltext"  # english analyzer: words stemmed
WORD_INDEX = "note_words"  # the same fields, words as written
ENTITY_INDEX = "entity_names"


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


# Kinds written only on purpose (never read into a note from its text) and never merged by
# consolidation: the session tools' handoff notes and the standing project context.
CONTEXTUAL_KINDS = (NoteKind.SESSION_SUMMARY, NoteKind.OPEN_THREAD, NoteKind.PROJECT_CONTEXT)
# Kinds searches skip unless asked (include_contextual): the handoff notes every close_session
# writes anew, whose current ones session_context returns. Whatever an agent stores as a fact,
# project_context included, is found by a default search.
HANDOFF_KINDS = (NoteKind.SESSION_SUMMARY, NoteKind.OPEN_THREAD)


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
    # Not a judgment: the note written just before this one in the same session (the project's
    # previous note, written at most SESSION_GAP_S earlier). Searches lift the notes written
    # around a hit; no enricher or model ever chooses it.
    FOLLOWS = "FOLLOWS"


FOLLOWS_REASON = "written next in the session"
# The types an enricher (rules or a model) may decide between two notes.
JUDGED_LINK_TYPES = tuple(t for t in LinkType if t is not LinkType.FOLLOWS)

