"""Rule-based link typing and context evolution for the offline enricher.

The rules read note kinds and a few lexical cues (negation, causation, term overlap); they are
deliberately conservative: when no specific rule fires, a similar pair is just RELATES_TO.
"""

from __future__ import annotations

import re

from kg_brain.llm import text as tx
from kg_brain.llm.types import Candidate, NoteDraft
from kg_brain.vocab import LinkType, NoteKind

CONTRADICTION_MIN_SIMILARITY = 0.6
EXTENDS_OVERLAP = 0.6

_NEGATION = re.compile(
    r"\b(?:not|never|no longer|instead of|wrong|incorrect|don'?t|doesn'?t|do not|does not|"
    r"shouldn'?t|should not|avoid|deprecated|stop using|isn'?t|aren'?t)\b",
    re.I,
)
# Cues that judge what comes before them ("X is wrong"); the others negate what follows.
_POSTFIX_CUES = ("wrong", "incorrect", "deprecated")
_CAUSE = re.compile(
    r"\b(?:because(?: of)?|caused by|due to|root cause(?: is| was)?|results? from|"
    r"stems? from|triggered by)\b",
    re.I,
)
_SUPPORTED_KINDS = (NoteKind.DECISION, NoteKind.PATTERN)
_SUPPORTING_KINDS = (
    NoteKind.RESEARCH, NoteKind.PATTERN, NoteKind.DECISION, NoteKind.FIX, NoteKind.GENERAL
)

# How the old note reads the link the new note made to it.
_EVOLUTION_VERBS: dict[LinkType, str] = {
    LinkType.FIXES: "Fixed by",
    LinkType.SUPERSEDES: "Superseded by",
    LinkType.SUPPORTS: "Supported by",
    LinkType.CONTRADICTS: "Contradicted by",
    LinkType.CAUSED_BY: "Causes",
    LinkType.EXTENDS: "Extended by",
    LinkType.RELATES_TO: "See also",
    LinkType.PART_OF: "Includes",
}
_CLAUSE = re.compile(
    r'\s*(?:' + "|".join(map(re.escape, _EVOLUTION_VERBS.values())) + r') "(?P<title>[^"]*)"\.'
)


def classify_link(
    note: NoteDraft, cand: Candidate, floor: float, supersede: float
) -> tuple[LinkType, str] | None:
    """The most specific link type the rules support, with a short reason; None below floor."""
    sim = cand.similarity
    if sim < floor:
        return None
    kind, other = note.note_kind, cand.note_kind
    if kind == NoteKind.FIX and other == NoteKind.MISTAKE:
        return LinkType.FIXES, "a fix for this recorded mistake"
    if kind == other and sim >= supersede:
        return LinkType.SUPERSEDES, f"a newer {kind} note nearly identical to it ({sim:.2f})"
    note_text = f"{note.title}. {note.content}"
    cand_text = f"{cand.title}. {cand.content}"
    if sim >= max(floor, CONTRADICTION_MIN_SIMILARITY):
        flipped = _polarity_flips(note_text, cand_text)
        if flipped:
            return LinkType.CONTRADICTS, f"opposite stance on {', '.join(sorted(flipped)[:3])}"
    cause_terms = _cause_terms(note_text) & tx.content_terms(cand.title or cand.content)
    if cause_terms:
        return LinkType.CAUSED_BY, f"names it as the cause ({', '.join(sorted(cause_terms)[:3])})"
    if other in _SUPPORTED_KINDS and kind in _SUPPORTING_KINDS:
        return LinkType.SUPPORTS, f"backs this {other}"
    if _more_general(note_text, cand_text):
        return LinkType.EXTENDS, "adds detail to a more general note with the same terms"
    return LinkType.RELATES_TO, f"semantically similar ({sim:.2f})"


def _strong_terms(text: str) -> set[str]:
    return {t for t in tx.content_terms(text) if t not in tx.WEAK_WORDS}


_CLAUSE_BREAK = re.compile(r"[;,:]|\b(?:but|so that|while|whereas|although)\b", re.I)


def _polarity_flips(note_text: str, cand_text: str) -> set[str]:
    """Terms one note negates in a clause that the other asserts: a lexical contradiction.

    Only the words a cue governs count (verbs included, so "never run the job" does not clash
    with "jobs take a lease"), and most of them must be asserted by the other note.
    """
    for source, other in ((note_text, cand_text), (cand_text, note_text)):
        asserted, negated = _split_polarity(other)
        asserted -= negated
        for scope in _negated_scopes(source):
            terms = tx.content_terms(scope)
            hit = terms & asserted
            strong = hit - tx.WEAK_WORDS
            if strong and len(hit) / len(terms) > 0.5:
                return strong
    return set()


def _split_polarity(text: str) -> tuple[set[str], set[str]]:
    """Terms of plain sentences and terms of sentences with a negation cue."""
    asserted: set[str] = set()
    negated: set[str] = set()
    for sentence in tx.prose_sentences(text):
        target = negated if _NEGATION.search(sentence) else asserted
        target |= tx.content_terms(sentence)
    return asserted, negated


def _negated_scopes(text: str) -> list[str]:
    """What each cue negates: the rest of its clause ("instead of X"), or the part before it
    ("X is wrong")."""
    scopes: list[str] = []
    for sentence in tx.prose_sentences(text):
        for clause in _CLAUSE_BREAK.split(sentence):
            for cue in _NEGATION.finditer(clause):
                postfix = cue.group(0).lower() in _POSTFIX_CUES
                scope = clause[: cue.start()] if postfix else clause[cue.end():]
                scopes.append(_NEGATION.sub(" ", scope))
    return scopes


def _cause_terms(text: str) -> set[str]:
    """Terms that follow a cause cue within its sentence ("... because the pool was full")."""
    terms: set[str] = set()
    for sentence in tx.prose_sentences(text):
        match = _CAUSE.search(sentence)
        if match:
            terms |= _strong_terms(sentence[match.end():])
    return terms


def _more_general(note_text: str, cand_text: str) -> bool:
    """The candidate is shorter and most of its terms reappear in the new note."""
    note_terms, cand_terms = _strong_terms(note_text), _strong_terms(cand_text)
    if not cand_terms or len(cand_terms) >= len(note_terms):
        return False
    return len(cand_terms & note_terms) / len(cand_terms) >= EXTENDS_OVERLAP


def evolved_context(
    old_context: str, new_title: str, link_type: LinkType, limit: int
) -> str | None:
    """The old context plus one clause naming the new note; None when nothing would change.

    A clause about the same title replaces the earlier one, and the oldest clauses go first when
    the context would outgrow `limit`, so repeated evolution never grows a note without bound.
    """
    title = tx.trim_words(new_title.replace('"', "'"), 80)
    if not title:
        return None
    clause = f'{_EVOLUTION_VERBS[link_type]} "{title}".'
    if clause.casefold() in old_context.casefold():
        return None
    clauses = [m.group(0).strip() for m in _CLAUSE.finditer(old_context)]
    base = _CLAUSE.sub("", old_context).strip()
    clauses = [c for c in clauses if f'"{title}".'.casefold() not in c.casefold()] + [clause]
    while len(clauses) > 1 and len(_compose(base, clauses)) > limit:
        clauses.pop(0)
    if len(_compose(base, clauses)) > limit:
        base = tx.trim_words(base, max(0, limit - len(clause) - 1))
    result = _compose(base, clauses)
    return None if result == old_context.strip() else result


def _compose(base: str, clauses: list[str]) -> str:
    return " ".join([base, *clauses]) if base else " ".join(clauses)
