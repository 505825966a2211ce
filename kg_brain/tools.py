"""The MCP surface: the seed's 18 tools, recall and capture_context, and the curation tools
(forget, list, edit, link, history), built over a lazy Brain; resources and prompts come from
kg_brain/resources.py.

Each tool validates, calls one domain function and returns a Pydantic model naming the project it
used. Building the server touches neither Neo4j nor the embedding model, so `initialize` and
`tools/list` answer at once; the first tool call connects. Domain errors (kg_brain.errors) become
ToolError with the domain's message through one adapter (resources.domain_errors).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastmcp import FastMCP
from fastmcp.exceptions import ToolError, ValidationError
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field
from pydantic import ValidationError as PydanticValidationError

from kg_brain import mistakes, resources, sessions, stats, validate
from kg_brain.app import Brain
from kg_brain.browsing import NotePage
from kg_brain.budget import AnswerBudget, fit_page
from kg_brain.consolidation import CLUSTER_MIN_COSINE, ConsolidationReport
from kg_brain.curation import Edited, ForgetReport, History, LinkChange, RestoreReport, Reverted
from kg_brain.errors import StoreUnavailable
from kg_brain.lifecycle import ArchiveReport, DecayEntry
from kg_brain.memory.write import AddResult
from kg_brain.models import Hit, LinkView, NoteView
from kg_brain.profiles import ToolProfile
from kg_brain.project import ClientRoots, resolve_project
from kg_brain.search import MAX_RELATED, Related

RECALL_LINKS = 8
ALL_PROJECTS = "*"
tool_errors = resources.domain_errors(ToolError)
INSTRUCTIONS = (
    "Long-term memory for this workspace. Start with open_session; before coding a task call "
    "preflight_check; search with search_memory (lookups) or deep_search (why/how questions), "
    "then recall(zk_ids) for full notes; store knowledge with add_memory; record_failure and "
    "record_resolution for errors and their fixes; end with close_session."
)

NoteKindName = Literal["mistake", "fix", "pattern", "research", "decision", "general",
                       "open_thread", "session_summary", "project_context"]
LinkTypeName = Literal["RELATES_TO", "SUPPORTS", "EXTENDS", "CONTRADICTS", "CAUSED_BY", "FIXES",
                       "SUPERSEDES", "PART_OF"]
MemoryTypeName = Literal["permanent", "fleeting", "archived"]
ProjectArg = Annotated[str | None, Field(
    description="project name; omit for this workspace's project (the client's workspace, else "
                "KG_BRAIN_PROJECT, else the server's git root, else 'general')")]
ScopeArg = Annotated[str | None, Field(
    description="project name, '*' for all projects; omit for this workspace's project")]
ZkId = Annotated[str, Field(description="note id, ZK- followed by 8 hex digits")]
ZkIds = Annotated[list[str], Field(min_length=1, max_length=50, description="note ids")]
TopK = Annotated[int, Field(ge=1, le=100, description="number of results")]
Contextual = Annotated[bool, Field(
    description="also search the session handoff notes (session_summary, open_thread); "
                "every other kind, project_context included, is searched by default")]

READ = ToolAnnotations(readOnlyHint=True, destructiveHint=False, idempotentHint=True,
                       openWorldHint=False)
# A lookup that stamps access (count, last use) on what it returns: being found is what keeps
# a note from archiving (kg_brain/lifecycle.py), so the stamp stays in the search's statement
# and the tool says honestly that it writes; repeating it stamps again (not idempotent).
STAMP = ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=False,
                        openWorldHint=False)
ADD = ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=False,
                      openWorldHint=False)
REWRITE = ToolAnnotations(readOnlyHint=False, destructiveHint=True, idempotentHint=False,
                          openWorldHint=False)
ARCHIVE = ToolAnnotations(readOnlyHint=False, destructiveHint=True, idempotentHint=True,
                          openWorldHint=False)
FORGET = ToolAnnotations(readOnlyHint=False, destructiveHint=True, idempotentHint=False,
                         openWorldHint=False)
LINK = ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=True,
                       openWorldHint=False)


NOTHING_FOUND = ("nothing relevant stored: no note comes close enough to the question (relevance "
                 "is the cosine to it); store the answer once you have it")


class SearchResults(BaseModel):
    project: str
    hits: list[Hit]
    hint: str = "previews: recall(zk_ids) for full notes with their links"

    @classmethod
    def of(cls, project: str, hits: list[Hit]) -> SearchResults:
        """An empty answer says why: the relevance floor found nothing close enough."""
        return cls(project=project, hits=hits) if hits else cls(
            project=project, hits=hits, hint=NOTHING_FOUND)


class Saved(BaseModel):
    project: str
    zk_id: str
    title: str
    memory_type: str
    note_kind: str
    deduplicated: bool = Field(description="an existing note matched and was reinforced")
    similarity: float | None = None
    redacted: list[str] = Field(default_factory=list, description="kinds of secrets removed")
    evolution_queued: bool = False
    links: list[LinkView] = Field(default_factory=list)

    @classmethod
    def of(cls, result: AddResult) -> Saved:
        n = result.note
        return cls(project=n.project, zk_id=n.zk_id, title=n.title, memory_type=n.memory_type,
                   note_kind=n.note_kind, deduplicated=result.deduplicated,
                   similarity=result.similarity, redacted=result.redacted,
                   evolution_queued=result.evolution_queued, links=n.links)


class RecalledNote(NoteView):
    """A full note whose links are its RECALL_LINKS most telling (typed before similarity
    links, heaviest first); link_count counts them all."""

    link_count: int = Field(0, description="all its links")

    @classmethod
    def of(cls, note: NoteView) -> RecalledNote:
        ranked = sorted(note.links, key=lambda k: (k.type == "RELATES_TO", -k.weight, k.zk_id))
        return cls(**{**dict(note), "links": ranked[:RECALL_LINKS]}, link_count=len(note.links))


class Notes(BaseModel):
    """Per id asked: its note in `notes`, or its id in `not_found`; `archived` names the notes
    returned that are archived (kept out of search)."""

    notes: list[RecalledNote]
    not_found: list[str] = Field(default_factory=list, description="no such note (or forgotten)")
    archived: list[str] = Field(default_factory=list, description="returned, but archived")


class ScopedArchiveReport(ArchiveReport):
    project: str = Field(description="the project archived, '*' for all")


class DecayReport(BaseModel):
    project: str = Field(description="the project reported, '*' for all")
    entries: list[DecayEntry]


class ScopedConsolidationReport(ConsolidationReport):
    project: str


class SessionStart(BaseModel):
    project: str
    context: sessions.SessionContext
    inbox: sessions.Inbox


class ArgumentErrors(Middleware):
    """Arguments the tool's schema refuses, told in plain sentences: each wrong argument, what
    it should be and what was given, without the validation library's links."""

    async def on_call_tool(self, context: MiddlewareContext[Any], call_next: CallNext) -> Any:
        try:
            return await call_next(context)
        except ValidationError as exc:
            cause = exc.__cause__
            if not isinstance(cause, PydanticValidationError):
                raise
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}"
                + ("" if e["type"] == "missing_argument" else f" (got {e['input']!r:.60})")
                for e in cause.errors(include_url=False))
            raise ToolError(f"{context.message.name} was called with invalid arguments: "
                            f"{problems}. Correct them and call it again.") from None


class BrainTools:
    """The tools as methods over one Brain; `build_server` registers them by name."""

    def __init__(self, brain: Brain) -> None:
        self.brain = brain

    def _project(self, given: str | None) -> str:
        return resolve_project(self.brain.settings, given)

    def _scope(self, given: str | None) -> str | None:
        return None if given == ALL_PROJECTS else self._project(given)

    # --- sessions ------------------------------------------------------------------------------
    def open_session(self, project: ProjectArg = None) -> SessionStart:
        """Start every coding session here: the project's state (last handoff, open thread,
        pinned notes, decisions, past mistakes with fixes) plus the inbox, in one call."""
        p = self._project(project)
        return SessionStart(project=p, context=self.get_session_context(p),
                            inbox=self.get_inbox(p, sessions.START_INBOX_LIMIT))

    def get_session_context(self, project: ProjectArg = None) -> sessions.SessionContext:
        """The project's state as headlines with ids, within the session token budget.
        Prefer open_session, which also returns the inbox."""
        return self.brain.sessions.context(self._project(project))

    def get_inbox(self, project: ProjectArg = None,
                  limit: Annotated[int, Field(ge=1, le=499, description="most notes")] = 50,
                  ) -> sessions.Inbox:
        """Fleeting notes awaiting distillation, oldest first: distill_to_permanent what is
        worth keeping."""
        p = self._project(project)
        return sessions.Inbox.of(p, self.brain.lifecycle.inbox(p, limit + 1), limit)

    def close_session(
        self,
        objective: Annotated[str, Field(description="what this session set out to do")],
        completed: Annotated[list[str], Field(description="what got done")],
        blockers: Annotated[list[str], Field(description="what is in the way; [] if nothing")],
        next_steps: Annotated[list[str], Field(description="what the next session should do")],
        key_files: Annotated[list[str] | None, Field(description="files that matter")] = None,
        project: ProjectArg = None,
    ) -> sessions.SessionClosed:
        """End every session here: writes one session_summary and the new active open_thread,
        archiving older open threads in the same transaction. The next open_session shows it."""
        return self.brain.sessions.close(self._project(project), objective, completed, blockers,
                                         next_steps, key_files)

    def capture_context(
        self,
        text: Annotated[str, Field(description="a chunk of session text, notes or a transcript")],
        project: ProjectArg = None,
    ) -> sessions.Captured:
        """Split session text into atomic statements, each kept as a fleeting note (deduplicated).
        For one known fact use add_memory instead."""
        return self.brain.sessions.capture(text, self._project(project))

    # --- retrieval -----------------------------------------------------------------------------
    def search_memory(
        self,
        query: Annotated[str, Field(description="what to look up")],
        top_k: TopK = 10,
        project: ProjectArg = None,
        include_contextual: Contextual = False,
        note_kinds: Annotated[list[NoteKindName] | None, Field(
            description="only these kinds")] = None,
    ) -> SearchResults:
        """Simple direct lookups ("what port does X use?"): hybrid vector + keyword search.
        For why/how questions spanning notes use deep_search. Returns previews, each with its
        relevance (cosine to the query); no hits means nothing relevant is stored. Marks the
        hits as used (access stamp, which defers their archival): not read-only."""
        p = self._project(project)
        hits = self.brain.search.search_memory(query, p, top_k, include_contextual,
                                               list(note_kinds) if note_kinds else None)
        return SearchResults.of(p, hits)

    def deep_search(
        self,
        query: Annotated[str, Field(description="the question")],
        project: ProjectArg = None,
        hops: Annotated[int, Field(ge=1, le=3, description=(
            "1: question channels and one graph step; 2: plus a blended vector hop; "
            "3: the graph step from twice as many notes"))] = 2,
        include_contextual: Contextual = False,
        top_k: TopK = 10,
    ) -> SearchResults:
        """Complex or causal questions ("why is X slow?", "how did we solve Y?"): the question's
        words, meaning and named entities, then the graph: notes sharing rare entities, the fix
        of a mistake, the successor of a superseded note. Each hit says how it was found.
        Returns previews with relevance, as search_memory. Marks the hits as used (access
        stamp): not read-only."""
        p = self._project(project)
        return SearchResults.of(p, self.brain.search.deep_search(
            query, p, hops, top_k, include_contextual))

    def recall(self, zk_ids: Annotated[list[str], Field(
            min_length=1, max_length=50, description="ids from search previews")]) -> Notes:
        """Full notes (content, context, their most telling links with titles and reasons) for
        ids found by a search or session context; unknown ids are listed in not_found."""
        asked = list(dict.fromkeys(validate.zk_id(z) for z in zk_ids))
        found = self.brain.reader.found(asked)
        known = {n.zk_id for n in found}
        return Notes(notes=[RecalledNote.of(n) for n in found],
                     not_found=[z for z in asked if z not in known],
                     archived=[n.zk_id for n in found if n.memory_type == "archived"])

    def get_related(self, zk_id: ZkId,
                    depth: Annotated[int, Field(ge=1, le=3, description="link hops")] = 1,
                    max_nodes: Annotated[int, Field(ge=1, le=MAX_RELATED, description=(
                        "most neighbours, nearest first"))] = 20,
                    ) -> Related:
        """Follow the knowledge graph from a note you found: its nearest neighbours with the
        typed links (and reasons) among them; total_nodes says how many are within depth."""
        return self.brain.search.get_related(zk_id, depth, max_nodes)

    def preflight_check(
        self,
        task: Annotated[str, Field(description="the task about to start, or an error message")],
        project: ProjectArg = None,
        top_k: Annotated[int, Field(ge=1, le=50, description="number of mistakes")] = 5,
    ) -> mistakes.Preflight:
        """Before coding a task: past mistakes most similar to it, each with its verified fix
        (same failure signature first). Marks them as used (access stamp, which defers their
        archival): not read-only."""
        return self.brain.mistakes.preflight_check(task, self._project(project), top_k)

    # --- writing -------------------------------------------------------------------------------
    def add_memory(
        self,
        content: Annotated[str, Field(description="one piece of knowledge, self-contained")],
        project: ProjectArg = None,
        memory_type: Annotated[Literal["permanent", "fleeting"], Field(
            description="permanent: linked and searchable; fleeting: quick capture, inbox")
        ] = "permanent",
        note_kind: Annotated[NoteKindName, Field(description="what kind of note")] = "general",
        pinned: Annotated[bool, Field(description="never archive automatically")] = False,
    ) -> Saved:
        """Store new knowledge (decision, pattern, research, ...). Near-duplicates reinforce the
        existing note. For errors use record_failure; for session text capture_context."""
        return Saved.of(self.brain.writer.add(content, self._project(project), memory_type,
                                              note_kind, pinned))

    def update_memory(self, zk_id: ZkId, new_content: Annotated[str, Field(
            description="the corrected or extended content (replaces the old)")]) -> Saved:
        """Correct or extend an existing note; the previous version is kept as a revision."""
        return Saved.of(self.brain.writer.update(zk_id, new_content))

    def distill_to_permanent(self, zk_id: ZkId) -> Saved:
        """Promote a fleeting note (from get_inbox) to permanent knowledge: re-enriched, linked."""
        return Saved.of(self.brain.writer.distill(zk_id))

    def record_failure(
        self,
        content: Annotated[str, Field(description="what failed: the error, command, context")],
        project: ProjectArg = None,
        failure_signature: Annotated[str | None, Field(
            description="the error message or trace to match on; omit to derive from content")
        ] = None,
    ) -> mistakes.FailureRecorded:
        """Capture a fresh failure as a fleeting mistake note with a normalised signature; shows
        earlier occurrences and their fixes. Follow with record_resolution once fixed."""
        return self.brain.mistakes.record_failure(content, self._project(project),
                                                  failure_signature)

    def record_resolution(
        self,
        failure_zk_id: Annotated[str, Field(description="the mistake note's id")],
        fix_content: Annotated[str, Field(description="the verified fix and why it works")],
        project: Annotated[str | None, Field(
            description="omit to use the failure's project")] = None,
    ) -> mistakes.ResolutionRecorded:
        """Capture a validated fix: a permanent fix note linked FIXES -> the failure, which is
        promoted to permanent. preflight_check will surface it for similar tasks."""
        return self.brain.mistakes.record_resolution(failure_zk_id, fix_content, project)

    # --- maintenance ---------------------------------------------------------------------------
    def archive_stale_notes(
        self,
        dry_run: Annotated[bool, Field(description="list candidates only; false applies")] = True,
        project: ScopeArg = None,
        limit: Annotated[int, Field(ge=1, le=1000, description="most notes listed back; all "
                                                               "are counted and archived")] = 50,
    ) -> ScopedArchiveReport:
        """Soft-archive unused notes (weekly maintenance): idle, rarely used, low decay score.
        Run with dry_run first. Archived notes leave searches; restore_note brings one back."""
        scope = self._scope(project)
        report = self.brain.lifecycle.archive_stale(dry_run, scope, limit)
        return ScopedArchiveReport(project=scope or ALL_PROJECTS, **report.model_dump())

    def restore_note(self, zk_id: ZkId) -> NoteView:
        """Restore one archived note to permanent."""
        return self.brain.lifecycle.restore(zk_id)

    def decay_report(
        self,
        limit: Annotated[int, Field(ge=1, le=1000, description="most notes")] = 20,
        project: ScopeArg = None,
    ) -> DecayReport:
        """The lowest-decay notes, likely to be archived next, with the date archival is due."""
        scope = self._scope(project)
        return DecayReport(project=scope or ALL_PROJECTS,
                           entries=self.brain.lifecycle.decay_report(limit, scope))

    def consolidate_clusters(
        self,
        project: ProjectArg = None,
        dry_run: Annotated[bool, Field(description="list clusters only; false merges")] = True,
        selected_cluster_ids: Annotated[list[str] | None, Field(
            description="cluster ids from a dry run to merge")] = None,
        min_similarity: Annotated[float, Field(ge=0.0, le=1.0, description=(
            "cluster threshold, the cosine of two notes' vectors"))] = CLUSTER_MIN_COSINE,
        max_clusters: Annotated[int, Field(ge=1, le=100, description="most clusters")] = 20,
    ) -> ScopedConsolidationReport:
        """Merge clusters of overlapping notes, manually: dry run first, then apply the selected
        cluster ids. Originals are archived and superseded by the merged note."""
        p = self._project(project)
        report = self.brain.consolidation.run(p, dry_run, selected_cluster_ids, min_similarity,
                                              max_clusters)
        return ScopedConsolidationReport(project=p, **report.model_dump())

    def brain_stats(self) -> stats.BrainStats:
        """Health check, all measured now: whether Neo4j answered (status online, degraded or
        unreachable, with the problems or the error), its version, note counts by type, kind
        and project (the largest and this one), links by type, job queues and dead letters,
        index states."""
        try:
            return self.brain.stats.report(self._project(None))
        except StoreUnavailable as exc:
            return stats.unreachable(self.brain.settings.neo4j_uri or "local server", str(exc))

    # --- curation --------------------------------------------------------------------------------
    def forget_note(
        self, zk_ids: ZkIds,
        reason: Annotated[str, Field(description="why (wrong, sensitive, unwanted, dismissed)")],
        hard: Annotated[bool, Field(description="erase for good, revisions too (secrets); "
                                                "no undo")] = False,
    ) -> ForgetReport:
        """Forget wrong, sensitive or unwanted notes, or dismiss inbox items: gone from every
        view, links dropped; a tombstone keeps them from coming back. restore_forgotten undoes
        it within the undo window; hard=true erases at once."""
        return self.brain.curation.forget(zk_ids, reason, hard)

    def restore_forgotten(self, zk_ids: ZkIds) -> RestoreReport:
        """Undo forget_note within the undo window: the notes come back with their entities
        and the links whose other end still exists."""
        return self.brain.curation.restore_forgotten(zk_ids)

    def list_notes(
        self,
        project: ProjectArg = None,
        note_kinds: Annotated[list[NoteKindName] | None, Field(
            description="only these kinds")] = None,
        tags: Annotated[list[str] | None, Field(description="only notes with every tag")] = None,
        pinned: Annotated[bool | None, Field(description="only pinned (true) or unpinned "
                                                         "(false) notes")] = None,
        memory_types: Annotated[list[MemoryTypeName] | None, Field(
            description="default permanent and fleeting")] = None,
        since: Annotated[str | None, Field(description="created at or after (ISO-8601)")] = None,
        until: Annotated[str | None, Field(description="created before (ISO-8601)")] = None,
        entity: Annotated[str | None, Field(
            description="only notes mentioning this entity (key or name)")] = None,
        order: Annotated[Literal["newest", "oldest", "updated"], Field(
            description="newest or oldest created first, or recently updated first")
        ] = "newest",
        limit: Annotated[int, Field(ge=1, le=100, description="notes per page")] = 20,
        cursor: Annotated[str | None, Field(
            description="next_cursor of the previous page")] = None,
    ) -> NotePage:
        """Browse notes by kind, tag, pinned state, type, date range or entity: previews, a page
        at a time (newest first by default). recall(zk_ids) for full notes."""
        return fit_page("list_notes", self.brain.browsing.list_notes(
            self._project(project), note_kinds, tags, pinned, memory_types, since, until, entity,
            order, limit, cursor))

    def edit_note(
        self, zk_id: ZkId,
        pinned: Annotated[bool | None, Field(description="pin (never archived) or unpin")] = None,
        tags: Annotated[list[str] | None, Field(description="the new tags (replace)")] = None,
        note_kind: Annotated[NoteKindName | None, Field(description="the new kind")] = None,
        title: Annotated[str | None, Field(description="the new title")] = None,
    ) -> Edited:
        """Pin or unpin, retag, re-kind or retitle a note; the previous version is kept
        (note_history). To change the content use update_memory."""
        return self.brain.curation.edit(zk_id, pinned, tags, note_kind, title)

    def link_notes(
        self,
        from_zk_id: Annotated[str, Field(description="the note the link starts at")],
        to_zk_id: Annotated[str, Field(description="the note it points to")],
        type: Annotated[LinkTypeName, Field(description="the relationship")],
        reason: Annotated[str, Field(description="why they are related")],
    ) -> LinkChange:
        """Link two notes of a project by hand with a typed relationship; a hand-made link is
        never pruned or rewritten."""
        return self.brain.curation.link(from_zk_id, to_zk_id, type, reason)

    def unlink_notes(
        self,
        from_zk_id: Annotated[str, Field(description="the note the link starts at")],
        to_zk_id: Annotated[str, Field(description="the note it points to")],
        type: Annotated[LinkTypeName, Field(description="the relationship to remove")],
    ) -> LinkChange:
        """Remove a typed link between two notes, whoever made it."""
        return self.brain.curation.unlink(from_zk_id, to_zk_id, type)

    def note_history(self, zk_id: ZkId) -> History:
        """A note's kept previous versions (updates, edits, evolution), newest first, as
        previews; revert_note brings one back."""
        return self.brain.curation.history(zk_id)

    def revert_note(self, zk_id: ZkId, version: Annotated[int, Field(
            ge=1, description="a version from note_history")]) -> Reverted:
        """Bring back a kept version of a note; the current version is kept too."""
        return self.brain.curation.revert(zk_id, version)


TOOLS: dict[str, ToolAnnotations] = {
    "open_session": READ, "get_session_context": READ, "get_inbox": READ,
    "distill_to_permanent": ADD, "deep_search": STAMP, "search_memory": STAMP,
    "get_related": READ, "add_memory": ADD, "update_memory": REWRITE,
    "archive_stale_notes": ARCHIVE, "close_session": ADD, "brain_stats": READ,
    "record_failure": ADD, "record_resolution": ADD, "preflight_check": STAMP,
    "restore_note": ADD, "decay_report": READ, "consolidate_clusters": REWRITE,
    "recall": READ, "capture_context": ADD, "forget_note": FORGET, "restore_forgotten": ADD,
    "list_notes": READ, "edit_note": REWRITE, "link_notes": LINK, "unlink_notes": ARCHIVE,
    "note_history": READ, "revert_note": REWRITE,
}


def build_server(brain: Brain) -> FastMCP:
    """Register every tool, each answer within its size budget (kg_brain/budget.py), each
    client offered its profile's (kg_brain/profiles.py); nothing here connects to Neo4j or
    loads the model."""
    mcp = FastMCP(name="kg-brain", instructions=INSTRUCTIONS)
    mcp.add_middleware(ToolProfile(brain.settings.kg_brain_tools))
    mcp.add_middleware(ClientRoots())
    mcp.add_middleware(ArgumentErrors())
    mcp.add_middleware(AnswerBudget())
    tools = BrainTools(brain)
    for name, hints in TOOLS.items():
        mcp.tool(tool_errors(getattr(tools, name)), name=name, annotations=hints)
    resources.register(mcp, brain)
    return mcp
