"""Retrieval tools: search_memory for lookups, deep_search for why/how questions, recall for
full notes and get_related for the graph around one."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

from kg_brain.base import validate
from kg_brain.domain.ranking import DEEP_HOPS
from kg_brain.domain.search import MAX_RELATED, Related
from kg_brain.shapes.models import Hit, NoteView
from kg_brain.surfaces.tools.base import Contextual, NoteKindName, ProjectArg, ToolArea, TopK, ZkId

RECALL_LINKS = 8

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


class SearchTools(ToolArea):
    """Lookups, deep questions, full notes and the graph around a note."""

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
        relevance (cosine to the query, of the note and its best sentence); no hits means
        nothing relevant is stored. Marks the hits as used (access stamp, written just after;
        it defers their archival): not read-only."""
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
            "3: the graph step from twice as many notes"))] = DEEP_HOPS,
        include_contextual: Contextual = False,
        top_k: TopK = 10,
    ) -> SearchResults:
        """Complex or causal questions ("why is X slow?", "how did we solve Y?"): the question's
        words, meaning and named entities, then the graph: notes sharing rare entities, the fix
        of a mistake, the successor of a superseded note, the notes written next to a hit in
        its session. Each hit says how it was found.
        Returns previews with relevance, as search_memory. Marks the hits as used (access
        stamp, written just after): not read-only."""
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
