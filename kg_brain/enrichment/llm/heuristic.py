"""The offline enricher: deterministic titles, entities, kinds, key phrases, tags and
rule-based link types.

It keeps every memory feature working without an LLM and is the fallback for each LLM call, so
it has to be fast and predictable: it never embeds, so a write embeds its note exactly once.
"""

from __future__ import annotations

import re
from collections import Counter

from kg_brain.base.errors import InvalidInput
from kg_brain.base.vocab import LinkType, NoteKind
from kg_brain.enrichment.llm import text as tx
from kg_brain.enrichment.llm.entities import extract_entities
from kg_brain.enrichment.llm.evolve import evolved_context
from kg_brain.enrichment.llm.kinds import infer_kind
from kg_brain.enrichment.llm.rules import classify_link
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

TITLE_CHARS = 100
# Entity kinds that make good search terms, best first; values (ports, dates) do not.
_KEYWORD_KINDS = (EntityKind.ERROR, EntityKind.IDENTIFIER, EntityKind.SERVICE, EntityKind.FILE,
                  EntityKind.ENV_VAR, EntityKind.SETTING, EntityKind.LIBRARY, EntityKind.TOOL,
                  EntityKind.PERSON, EntityKind.PROPER_NOUN, EntityKind.HOST, EntityKind.URL,
                  EntityKind.PHRASE)

_FILLER_LEAD = re.compile(
    r"^(?:note|tl;?dr|fyi|update|edit|summary|important|ok(?:ay)?|so|well|basically|"
    r"note that|i think|i noticed|it seems|it turns out|turns out|we found that|found that)"
    r"\b\s*[:,\-–—]?\s*",
    re.I,
)
_FILLER_SENTENCE = re.compile(
    r"^(?:(?:ok(?:ay)?|thanks?(?: you)?|great|cool|nice|perfect|awesome|sounds good|lgtm|done|"
    r"yes|no|sure|got it|hmm+|hello|hi|hey|bye|anyway|alright|right)[\s,.!…]*)+$|"
    r"^(?:let me (?:check|see|look|try)|i'?ll (?:check|look|try)|let'?s (?:see|go))\b",
    re.I,
)
_ANAPHORA = re.compile(r"^(?:this|that|these|those|it|its|they|also|so|then|which|but|and|"
                       r"otherwise|therefore|hence)\b", re.I)
_LABEL = re.compile(r"^[^.!?]{1,40}:$")

_CONTEXT_TEMPLATES: dict[str, str] = {
    NoteKind.MISTAKE: "Records a failure to avoid repeating, involving {kw}.",
    NoteKind.FIX: "Records a verified fix for {kw}, so the same problem is solved faster "
    "next time.",
    NoteKind.DECISION: "Records the decision about {kw} and its rationale.",
    NoteKind.PATTERN: "Records a reusable pattern for {kw}.",
    NoteKind.RESEARCH: "Records research findings on {kw} to inform later choices.",
    NoteKind.OPEN_THREAD: "Tracks unfinished work on {kw} to pick up in a later session.",
    NoteKind.SESSION_SUMMARY: "Summarises a work session touching {kw}.",
    NoteKind.PROJECT_CONTEXT: "Describes standing project context: {kw}.",
    NoteKind.GENERAL: "Background knowledge about {kw}.",
}


class HeuristicEnricher:
    """Enricher without an LLM or an embedder: rules and text statistics only."""

    name = "heuristic"

    def __init__(self, *, min_similarity: float = 0.45, max_context_chars: int = 600) -> None:
        self._min_similarity = min_similarity
        self._max_context_chars = max_context_chars

    # --- enrich ----------------------------------------------------------------------------------
    def enrich(self, content: str, note_kind: str, project: str) -> Enrichment:
        entities = extract_entities(content)
        kind = infer_kind(content, note_kind)
        keywords = keywords_of(content, entities, _keyword_limit(content))
        return Enrichment(
            title=make_title(content),
            context=make_context(kind, project, keywords),
            keywords=keywords,
            tags=make_tags(content, kind, project, keywords),
            entities=entities,
            note_kind=kind,
        )

    # --- links -----------------------------------------------------------------------------------
    def decide_links(self, note: NoteDraft, candidates: list[Candidate]) -> list[LinkDecision]:
        decisions: list[LinkDecision] = []
        seen: set[str] = set()
        for cand in sorted(candidates, key=lambda c: -c.similarity):
            if cand.zk_id in seen:
                continue
            verdict = classify_link(note, cand, self._min_similarity)
            if verdict is None:
                continue
            seen.add(cand.zk_id)
            link_type, reason = verdict
            weight = round(min(1.0, max(0.0, cand.similarity)), 4)
            decisions.append(
                LinkDecision(zk_id=cand.zk_id, link_type=link_type, reason=reason, weight=weight)
            )
        return decisions

    def evolve_context(self, old: NoteDraft, new: NoteDraft, link_type: LinkType) -> str | None:
        title = new.title.strip() or make_title(new.content)
        return evolved_context(old.context, title, link_type, self._max_context_chars)

    # --- consolidation ---------------------------------------------------------------------------
    def synthesize(self, notes: list[NoteDraft]) -> Synthesis:
        if not notes:
            raise InvalidInput("synthesize needs at least one note")
        order = self._by_centrality(notes)
        central = notes[order[0]]
        content = _merge_units([notes[i].content for i in order])
        keywords = _merged_keywords([n.content for n in notes], 10)
        kinds = Counter(n.note_kind for n in notes)
        kind = kinds.most_common(1)[0][0]
        tags = make_tags(content, kind, "general", keywords)
        kw = _join_terms(keywords[:3]) or "one topic"
        context = f"Consolidates {len(notes)} overlapping notes about {kw} into one reference."
        return Synthesis(
            title=central.title.strip() or make_title(central.content),
            content=content,
            context=context,
            keywords=keywords,
            tags=tags,
        )

    def _by_centrality(self, notes: list[NoteDraft]) -> list[int]:
        """Indices ordered by summed term overlap with the others: the first speaks for the
        cluster."""
        terms = [tx.content_terms(f"{n.title}. {n.content[:2000]}") for n in notes]
        centrality = [sum(_jaccard(t, o) for o in terms) for t in terms]
        return sorted(range(len(notes)), key=lambda i: (-round(centrality[i], 6), i))

    def split_atomic(self, text: str) -> list[str]:
        return split_atomic(text)

    def summarize_session(self, extract: SessionDigest, requests: list[str]) -> SessionDigest:
        """Without a model the extract is the handoff: nothing is left out or made up."""
        return extract


# --- title, context, tags ---------------------------------------------------------------------


def make_title(content: str) -> str:
    """The first claim-like sentence, without markdown or filler, cut at a word boundary."""
    chosen = ""
    for sentence in tx.prose_sentences(content):
        sentence = _FILLER_LEAD.sub("", sentence).strip()
        if _FILLER_SENTENCE.match(sentence) or not tx.words(sentence):
            continue
        chosen = chosen or sentence
        if len(tx.words(sentence)) >= 3:
            chosen = sentence
            break
    if not chosen:
        lines = [line.strip("`# ") for line in content.splitlines() if line.strip("`# ")]
        chosen = lines[0] if lines else "Untitled note"
    chosen = chosen.rstrip(".!;: ")
    return tx.trim_words(chosen[:1].upper() + chosen[1:], TITLE_CHARS)


def make_context(note_kind: str, project: str, keywords: list[str]) -> str:
    """One sentence on why the note matters, by kind, naming its main terms."""
    template = _CONTEXT_TEMPLATES.get(note_kind, _CONTEXT_TEMPLATES[NoteKind.GENERAL])
    kw = _join_terms(keywords[:3]) or "this topic"
    sentence = template.format(kw=kw)
    if project and project != "general":
        sentence = sentence[:-1] + f" (project {project})."
    return sentence


def make_tags(content: str, note_kind: str, project: str, keywords: list[str]) -> list[str]:
    """2-5 category tags: kind, project, then topics named in the text."""
    tags: list[str] = []
    for tag in [note_kind, project if project != "general" else "", *tx.detect_topics(content)]:
        tag = tx.slug(tag)
        if tag and tag not in tags:
            tags.append(tag)
    for fallback in [*(tx.slug(k) for k in keywords), "general"]:
        if len(tags) >= 2:
            break
        if fallback and fallback not in tags:
            tags.append(fallback)
    return tags[:5]


def _join_terms(terms: list[str]) -> str:
    if len(terms) <= 1:
        return "".join(terms)
    return ", ".join(terms[:-1]) + " and " + terms[-1]


# --- key phrases -------------------------------------------------------------------------------


def keywords_of(content: str, entities: list[EntityRef], limit: int) -> list[str]:
    """Search terms: the note's entities by kind (errors and code names first), then its most
    frequent key phrases; no term that is part of one already chosen."""
    rank = {kind: i for i, kind in enumerate(_KEYWORD_KINDS)}
    named = sorted((e for e in entities if e.kind in rank), key=lambda e: rank[e.kind])
    terms = [e.name.strip("`") for e in named]
    first_sentence = " ".join(tx.words(" ".join(tx.prose_sentences(content)[:1])))
    phrases = tx.candidate_phrases(content)
    prior = {p: count + 0.3 * (len(p.split()) - 1) + (0.5 if p in first_sentence else 0.0)
             for p, count in phrases.items()}
    terms += sorted(prior, key=lambda p: (-prior[p], p))
    return _distinct(terms, limit)


def _keyword_limit(content: str) -> int:
    return min(10, max(5, 4 + len(tx.words(content)) // 40))


def _distinct(phrases: list[str], limit: int) -> list[str]:
    """Phrases in order, skipping any whose stems are contained in one already kept."""
    kept: list[str] = []
    kept_terms: list[set[str]] = []
    for phrase in phrases:
        terms = {tx.stem(w) for w in tx.words(phrase)} or {phrase.lower()}
        if any(terms <= other or other <= terms for other in kept_terms):
            continue
        kept.append(phrase)
        kept_terms.append(terms)
        if len(kept) >= limit:
            break
    return kept


# --- synthesis and splitting ---------------------------------------------------------------------


def _merge_units(contents: list[str]) -> str:
    """Deduplicated union of sentences and code blocks, one paragraph per source note."""
    kept_terms: list[set[str]] = []
    kept_keys: set[str] = set()
    paragraphs: list[str] = []
    for content in contents:
        units: list[str] = []
        for unit in _units(content):
            key = " ".join(tx.words(unit)) or unit.strip()
            terms = tx.content_terms(unit)
            near = any(terms and _jaccard(terms, other) >= 0.8 for other in kept_terms)
            if key in kept_keys or near:
                continue
            kept_keys.add(key)
            kept_terms.append(terms)
            units.append(unit)
        if units:
            paragraphs.append(_join_units(units))
    return "\n\n".join(paragraphs)


def _units(content: str) -> list[str]:
    """Sentences of the prose and whole fenced code blocks, in order."""
    units: list[str] = []
    for part in re.split(r"(```[^\n`]*\n.*?```)", content, flags=re.S):
        if part.startswith("```"):
            units.append(part.strip())
        else:
            units.extend(tx.prose_sentences(part))
    return units


def _join_units(units: list[str]) -> str:
    out = ""
    for unit in units:
        sep = "\n" if unit.startswith("```") or out.endswith("```") else " "
        out = f"{out}{sep}{unit}" if out else unit
    return out


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def _merged_keywords(contents: list[str], limit: int) -> list[str]:
    """Terms that recur across the cluster: document frequency first, then total count."""
    doc_freq: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for content in contents:
        terms = Counter({i.strip("`"): 3 for i in tx.identifiers(content)[:10]})
        terms.update(tx.candidate_phrases(content))
        doc_freq.update(set(terms))
        total.update(terms)
    ranked = sorted(total, key=lambda t: (-doc_freq[t], -total[t], -len(t.split()), t))
    out: list[str] = []
    for term in ranked:
        stems = {tx.stem(w) for w in tx.words(term)}
        if any(stems <= {tx.stem(w) for w in tx.words(o)} for o in out):
            continue
        out.append(term)
        if len(out) >= limit:
            break
    return out


def split_atomic(text: str) -> list[str]:
    """Self-contained statements: one per sentence, bullet or code block, fillers dropped."""
    statements: list[str] = []
    for part in re.split(r"(```[^\n`]*\n.*?```)", text, flags=re.S):
        if part.startswith("```"):
            if statements:
                statements[-1] = f"{statements[-1]}\n{part.strip()}"
            else:
                statements.append(part.strip())
            continue
        for block in tx.markdown_blocks(part):
            if not tx.is_heading(block):
                _add_block(statements, tx.split_sentences(tx.strip_markdown(block)))
    return list(dict.fromkeys(s for s in statements if len(tx.words(s)) >= 2))


def _add_block(statements: list[str], sentences: list[str]) -> None:
    """Sentences of one block; pronoun-led or tiny ones join the statement before them."""
    started = False
    for sentence in sentences:
        sentence = sentence.strip()
        if _FILLER_SENTENCE.match(sentence) or sentence.endswith("?") or _LABEL.match(sentence):
            continue
        tiny = len(sentence.split()) < 4
        if statements and (_ANAPHORA.match(sentence) or (tiny and started)):
            statements[-1] = f"{statements[-1]} {sentence}"
        else:
            statements.append(sentence)
        started = True
