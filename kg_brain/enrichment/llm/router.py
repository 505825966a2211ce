"""The LLM-backed enricher: routes each operation to the fast or the hard model.

Enrichment, link decisions and splitting use the fast model; memory evolution and synthesis
use the hard one (the seed's routing). Any provider failure falls back to the heuristic for
that one call, so a flaky endpoint degrades quality, never availability.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from pydantic import BaseModel, Field

from kg_brain.base.errors import ProviderError
from kg_brain.base.vocab import JUDGED_LINK_TYPES, LinkType, NoteKind
from kg_brain.enrichment.llm import text as tx
from kg_brain.enrichment.llm.entities import canonical_key, extract_entities
from kg_brain.enrichment.llm.heuristic import (
    HeuristicEnricher,
    keywords_of,
    make_context,
    make_tags,
    make_title,
)
from kg_brain.enrichment.llm.kinds import infer_kind
from kg_brain.enrichment.llm.types import (
    Candidate,
    Enrichment,
    EntityKind,
    EntityRef,
    LinkDecision,
    NoteDraft,
    SessionDigest,
    Synthesis,
)

if TYPE_CHECKING:  # the providers load httpx: only when one is configured
    from kg_brain.enrichment.llm.providers import ChatProvider

log = logging.getLogger(__name__)
T = TypeVar("T")

CONTENT_CHARS = 6000
SNIPPET_CHARS = 500
MAX_ENTITIES = 30
_LINK_TYPES = ", ".join(t.value for t in JUDGED_LINK_TYPES)
_JUDGED = {t.value for t in JUDGED_LINK_TYPES}
_ENTITY_KINDS = ", ".join(k.value for k in EntityKind)
_NOTE_KINDS = ", ".join(k.value for k in NoteKind if k != NoteKind.SESSION_SUMMARY)

ENRICH_PROMPT = f"""You turn a piece of knowledge into an atomic Zettelkasten note for a coding \
agent's long-term memory. Reply with one JSON object and nothing else:
{{"title": str, "context": str, "keywords": [str], "tags": [str], \
"entities": [{{"name": str, "kind": str}}], "note_kind": str}}
- title: the single claim the note makes, at most 100 characters, no markdown
- context: one sentence on why this matters for future work
- keywords: 5-10 specific search terms (identifiers, tools, error names, concepts)
- tags: 2-5 short lowercase category tags
- entities: the specific things the note is about or states a value of, named as written \
(a service, file, library, error, person, setting, port, version...); kind is one of: \
{_ENTITY_KINDS}. Never generic words such as "error", "code" or "the project".
- note_kind: one of {_NOTE_KINDS}; when the given note_kind is not general, repeat it"""

LINKS_PROMPT = f"""You decide which existing notes a new note should link to. A link reads \
"new note <TYPE> candidate". Types: {_LINK_TYPES}. FIXES: the new note fixes the candidate \
mistake (same subject). SUPERSEDES: it changes a fact the candidate states (same subject, a new \
value). CONTRADICTS: they disagree about the same thing, with no change over time. CAUSED_BY: \
the candidate is its cause. PART_OF: it is a part or step of the candidate. EXTENDS: it adds \
detail to the candidate. SUPPORTS: it is evidence for the candidate. RELATES_TO: related, none \
of those. Each note lists its entities: notes about different services, files or people are \
not linked however alike they read. A fix never contradicts the decision it carries out, nor \
a mistake its own fix. Link only real relations; an empty list is fine. Reply with JSON only:
{{"links": [{{"zk_id": str, "link_type": str, "reason": str}}]}}"""

EVOLVE_PROMPT = """A new note was just linked to an existing note. Rewrite the existing note's \
context (one or two sentences on why it matters) so that it reflects the new connection. \
Keep it under {limit} characters. If the context needs no change, answer null. Reply with JSON \
only: {{"context": str | null}}"""

SYNTHESIZE_PROMPT = """Merge these overlapping notes into one atomic note. Keep every distinct \
fact and code example, drop repetition. Reply with JSON only:
{"title": str, "content": str, "context": str, "keywords": [str], "tags": [str]}
title: one claim of at most 100 characters; keywords: 5-10; tags: 2-5 lowercase."""

SPLIT_PROMPT = """Split the text into atomic statements worth remembering. Each statement must \
make sense on its own (name things instead of using pronouns); drop chit-chat, greetings and \
questions; keep code with the statement it belongs to. Reply with JSON only: {"notes": [str]}"""

SESSION_PROMPT = """You write the handoff of a coding session for the next session, from the \
record of what it did (the user's requests, files edited, commands run with their exit status, \
commands still failing). Say what the session set out to do, what got done (merge repeated \
runs, keep file names, commands and errors exact), what is in the way, and what to do next. \
Use only what the record says. Reply with JSON only:
{"objective": str, "completed": [str], "blockers": [str], "next_steps": [str]}"""
DIGEST_ITEMS, DIGEST_ITEM_CHARS = 12, 300


class _EntityItem(BaseModel):
    name: str = Field(min_length=1, max_length=200)
    kind: str = "phrase"


class _EnrichReply(BaseModel):
    title: str = Field(min_length=1)
    context: str = ""
    keywords: list[str] = []
    tags: list[str] = []
    entities: list[_EntityItem] = []
    note_kind: str = ""


class _LinkItem(BaseModel):
    zk_id: str
    link_type: str
    reason: str = ""


class _LinksReply(BaseModel):
    links: list[_LinkItem] = []


class _ContextReply(BaseModel):
    context: str | None = None


class _SynthesisReply(BaseModel):
    title: str = Field(min_length=1)
    content: str = Field(min_length=1)
    context: str = ""
    keywords: list[str] = []
    tags: list[str] = []


class _SplitReply(BaseModel):
    notes: list[str]


class _DigestReply(BaseModel):
    objective: str = Field(min_length=1)
    completed: list[str] = []
    blockers: list[str] = []
    next_steps: list[str] = []


class LLMEnricher:
    """Enricher that asks a chat model and falls back to the heuristic call by call."""

    def __init__(
        self,
        provider: ChatProvider,
        fallback: HeuristicEnricher,
        *,
        min_similarity: float = 0.45,
        max_context_chars: int = 600,
    ) -> None:
        self._provider = provider
        self._fallback = fallback
        self._min_similarity = min_similarity
        self._max_context_chars = max_context_chars
        self.name = f"{provider.kind}:{provider.model_for('fast')}"

    def _call(self, op: str, ask: Callable[[], T], fallback: Callable[[], T]) -> T:
        try:
            return ask()
        except ProviderError as exc:
            log.warning("%s: %s failed, using the heuristic instead: %s", self.name, op, exc)
            return fallback()

    def enrich(self, content: str, note_kind: str, project: str) -> Enrichment:
        def ask() -> Enrichment:
            user = f"note_kind: {note_kind}\nproject: {project}\n\n{content[:CONTENT_CHARS]}"
            reply = self._provider.complete("fast", ENRICH_PROMPT, user, _EnrichReply)
            entities = _entities(reply.entities, content)
            kind = _kind(reply.note_kind, note_kind, content)
            keywords = _clean_terms(reply.keywords, 10) or keywords_of(content, entities, 8)
            return Enrichment(
                title=tx.trim_words(tx.strip_markdown(reply.title), 100) or make_title(content),
                context=" ".join(reply.context.split()) or make_context(kind, project, keywords),
                keywords=keywords,
                tags=_clean_tags(reply.tags, kind, content, project, keywords),
                entities=entities,
                note_kind=kind,
            )

        return self._call("enrich", ask, lambda: self._fallback.enrich(content, note_kind, project))

    def decide_links(self, note: NoteDraft, candidates: list[Candidate]) -> list[LinkDecision]:
        eligible = [c for c in candidates if c.similarity >= self._min_similarity]
        if not eligible:
            return []

        def ask() -> list[LinkDecision]:
            user = json.dumps({"new_note": _draft_json(note), "candidates": [
                {"zk_id": c.zk_id, "note_kind": c.note_kind, "similarity": round(c.similarity, 3),
                 "title": c.title, "content": c.content[:SNIPPET_CHARS],
                 "entities": _keys(c.entities, c.content)} for c in eligible]})
            reply = self._provider.complete("fast", LINKS_PROMPT, user, _LinksReply)
            return _valid_links(reply, eligible)

        return self._call(
            "decide_links", ask, lambda: self._fallback.decide_links(note, candidates)
        )

    def evolve_context(self, old: NoteDraft, new: NoteDraft, link_type: LinkType) -> str | None:
        def ask() -> str | None:
            system = EVOLVE_PROMPT.format(limit=self._max_context_chars)
            user = json.dumps({"link": f"new note {link_type.value} existing note",
                               "existing_note": _draft_json(old), "new_note": _draft_json(new)})
            reply = self._provider.complete("hard", system, user, _ContextReply)
            refined = " ".join((reply.context or "").split())
            if not refined or refined == " ".join(old.context.split()):
                return None
            return tx.trim_words(refined, self._max_context_chars)

        return self._call(
            "evolve_context", ask, lambda: self._fallback.evolve_context(old, new, link_type)
        )

    def synthesize(self, notes: list[NoteDraft]) -> Synthesis:
        if not notes:
            return self._fallback.synthesize(notes)  # raises the InvalidInput

        def ask() -> Synthesis:
            user = json.dumps({"notes": [_draft_json(n) for n in notes]})
            reply = self._provider.complete("hard", SYNTHESIZE_PROMPT, user, _SynthesisReply)
            keywords = _clean_terms(reply.keywords, 10)
            kind = notes[0].note_kind
            return Synthesis(
                title=tx.trim_words(tx.strip_markdown(reply.title), 100),
                content=reply.content.strip(),
                context=" ".join(reply.context.split()) or make_context(kind, "general", keywords),
                keywords=keywords,
                tags=_clean_tags(reply.tags, kind, reply.content, "general", keywords),
            )

        return self._call("synthesize", ask, lambda: self._fallback.synthesize(notes))

    def split_atomic(self, text: str) -> list[str]:
        def ask() -> list[str]:
            reply = self._provider.complete("fast", SPLIT_PROMPT, text[:CONTENT_CHARS], _SplitReply)
            return list(dict.fromkeys(s.strip() for s in reply.notes if s.strip()))

        if len(text) > CONTENT_CHARS:  # too long for one prompt: the rules handle any length
            return self._fallback.split_atomic(text)
        return self._call("split_atomic", ask, lambda: self._fallback.split_atomic(text))

    def summarize_session(self, extract: SessionDigest, requests: list[str]) -> SessionDigest:
        """The hard model's summary of the session's extract and the user's requests; the extract
        itself when the model fails, times out or answers nothing usable: a handoff is never
        lost."""
        def ask() -> SessionDigest:
            user = _session_record(requests, extract)
            reply = self._provider.complete("hard", SESSION_PROMPT, user, _DigestReply)
            return SessionDigest(objective=tx.trim_words(reply.objective, 2_000),
                                 completed=_items(reply.completed), blockers=_items(reply.blockers),
                                 next_steps=_items(reply.next_steps))

        return self._call("summarize_session", ask,
                          lambda: self._fallback.summarize_session(extract, requests))


def _session_record(requests: list[str], extract: SessionDigest) -> str:
    """The session's record as JSON within CONTENT_CHARS: the oldest items of the longest list
    give way first, each whole, so the record stays a JSON document and no value (a command
    line, a secret in it) is cut in two."""
    asked, done = list(requests), extract.model_dump()
    record = {"requests": asked, "extract": done}
    lists: list[list[str]] = [asked, *(v for v in done.values() if isinstance(v, list))]
    text = json.dumps(record)
    while len(text) > CONTENT_CHARS and any(lists):
        max(lists, key=lambda items: len(json.dumps(items))).pop(0)
        text = json.dumps(record)
    return text


def _items(replied: list[str]) -> list[str]:
    """A summary's list: items on one line each, bounded in number and length."""
    return [tx.trim_words(item, DIGEST_ITEM_CHARS) for item in replied if item.strip()][
        :DIGEST_ITEMS]


def _draft_json(note: NoteDraft) -> dict[str, object]:
    return {"title": note.title, "note_kind": note.note_kind, "context": note.context,
            "content": note.content[:SNIPPET_CHARS * 3],
            "entities": _keys(note.entities, note.content)}


def _keys(given: list[str], content: str) -> list[str]:
    """The entity keys a note carries, or the offline extractor's when it carries none."""
    return given or [e.key for e in extract_entities(content)][:MAX_ENTITIES]


# Kinds the offline extractor finds by their shape, reliably: kept when the model misses them.
_SHAPED = frozenset({EntityKind.FILE, EntityKind.ENV_VAR, EntityKind.ERROR, EntityKind.URL,
                     EntityKind.IDENTIFIER, EntityKind.PORT, EntityKind.VERSION})


def _entities(items: list[_EntityItem], content: str) -> list[EntityRef]:
    """The model's entities with canonical keys (unknown kinds read as phrases), then the
    code-shaped ones it missed; the offline extraction alone when it named none."""
    found: dict[str, EntityRef] = {}
    for item in items:
        name = " ".join(item.name.split())
        kind = EntityKind(item.kind) if item.kind in EntityKind.__members__.values() else (
            EntityKind.PHRASE)
        key = canonical_key(name, kind)
        if key and name:
            found.setdefault(key, EntityRef(key=key, name=name, kind=kind))
    named = bool(found)
    for ref in extract_entities(content):
        if not named or ref.kind in _SHAPED:
            found.setdefault(ref.key, ref)
    return list(found.values())[:MAX_ENTITIES]


def _kind(replied: str, given: str, content: str) -> str:
    """The caller's kind when it gave one; else the model's, if it is a note kind; else the
    offline inference."""
    if given != NoteKind.GENERAL:
        return given
    replied = replied.strip().lower().replace(" ", "_")
    if replied in NoteKind.__members__.values() and replied != NoteKind.SESSION_SUMMARY:
        return replied
    return infer_kind(content, given)


def _valid_links(reply: _LinksReply, eligible: list[Candidate]) -> list[LinkDecision]:
    """Keep links to offered candidates with a known type; weight is the similarity."""
    by_id = {c.zk_id: c for c in eligible}
    decisions: dict[str, LinkDecision] = {}
    for item in reply.links:
        cand = by_id.get(item.zk_id.strip())
        type_name = item.link_type.strip().upper().replace(" ", "_").replace("-", "_")
        if cand is None or type_name not in _JUDGED or cand.zk_id in decisions:
            log.debug("dropping link reply item %s", item)
            continue
        decisions[cand.zk_id] = LinkDecision(
            zk_id=cand.zk_id,
            link_type=LinkType[type_name],
            reason=" ".join(item.reason.split())[:300] or "chosen by the model",
            weight=round(min(1.0, max(0.0, cand.similarity)), 4),
        )
    return list(decisions.values())


def _clean_terms(terms: list[str], limit: int) -> list[str]:
    """Trimmed, case-insensitively unique, bounded."""
    out: dict[str, str] = {}
    for term in terms:
        term = " ".join(str(term).split()).strip("`'\"#.,;")
        if term and len(term) <= 80:
            out.setdefault(term.casefold(), term)
    return list(out.values())[:limit]


def _clean_tags(tags: list[str], kind: str, content: str, project: str,
                keywords: list[str]) -> list[str]:
    """Slug tags with the note kind first; padded by the heuristic's tags when too few."""
    out = [tx.slug(kind)]
    for tag in tags:
        tag = tx.slug(str(tag))
        if tag and tag not in out:
            out.append(tag)
    for tag in make_tags(content, kind, project, keywords):
        if len(out) >= 2:
            break
        if tag not in out:
            out.append(tag)
    return out[:5]
