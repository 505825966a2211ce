"""Whether one note denies what another asserts: negated clauses, antonyms, "is wrong".

The CONTRADICTS rule reads these; set phrases that only look negative ("can't wait", "not only")
and negations that qualify a noun ("events it cannot parse") deny nothing.
"""

from __future__ import annotations

import re

from kg_brain.enrichment.llm import text as tx

FLIP_TERMS_MIN = 2  # content words an antonym's sentences must share to be about one thing
NEGATION = re.compile(
    r"\b(?:not|never|no|cannot|can'?t|don'?t|doesn'?t|do not|does not|isn'?t|aren'?t|won'?t|"
    r"shouldn'?t|should not|wasn'?t|weren'?t|without|neither|nor)\b", re.I)
_ANTONYMS = (("include", "exclude"), ("enabled", "disabled"), ("enable", "disable"),
             ("allow", "deny"), ("allowed", "forbidden"), ("required", "optional"),
             ("safe", "unsafe"), ("always", "never"), ("can", "cannot"), ("sync", "async"),
             ("exactly once", "more than once"), ("idempotent", "duplicate"),
             ("public", "private"), ("succeed", "fail"))

_CONTRARY = re.compile(r"\b(?:contrary to|is wrong|was wrong|is incorrect|was incorrect|"
                       r"is not true|is false|was mistaken)\b", re.I)
# Set phrases with a negation word that assert rather than deny ("can't wait", "never forget",
# "not only"): read as denials they made chat turns contradict each other.
_EMPHATIC = re.compile(
    r"\b(?:can'?t|cannot|couldn'?t) (?:wait|agree more|beat|believe|help|thank)\b|"
    r"\b(?:never|don'?t|won'?t) forget\b|\b(?:never|don'?t) give up\b|\bnot (?:just|only)\b|"
    r"\bno (?:wonder|worries|problem|doubts?)\b", re.I)
# A negation inside a relative clause ("events it cannot parse") qualifies a noun, it does not
# deny the sentence.
_RELATIVE = re.compile(r"[a-z]\w* (?:it|they|we|you|that|which) $", re.I)
# "I'm not alone and have a great team": the negation ends where a second predicate begins.
_NEXT_PREDICATE = re.compile(r"\s(?:and|or)\s+(?:i|we|you|they|he|she|it|have|has|had|am|is|"
                             r"are|was|were|do|does|did)\b", re.I)
# "must not X before Y" orders events; it does not deny X.
_TEMPORAL = re.compile(r"\b(?:before|after|until|once|while|during)\b", re.I)


def says_wrong(text: str) -> bool:
    """The text says outright that something is wrong ("contrary to", "is incorrect")."""
    return bool(_CONTRARY.search(text))


def denied_terms(new_text: str, old_text: str) -> set[str]:
    """What one text denies of what the other asserts (the shared terms, or "a/b" for an
    antonym pair); empty when neither does."""
    new_text, old_text = _EMPHATIC.sub(" ", new_text), _EMPHATIC.sub(" ", old_text)
    return _polarity_flips(new_text, old_text) or _antonym_flip(new_text, old_text)


_CLAUSE_BREAK = re.compile(r"[;,:]|\b(?:but|so that|while|whereas|although)\b", re.I)


def _polarity_flips(note_text: str, cand_text: str) -> set[str]:
    """Strong terms one note negates in a clause that the other asserts without negation;
    most of the negated clause's terms must be asserted by the other note."""
    for source, other in ((note_text, cand_text), (cand_text, note_text)):
        asserted, negated = _split_polarity(other)
        asserted -= negated
        for scope in _negated_scopes(source):
            terms = tx.strong_terms(scope)
            hit = terms & asserted
            if len(hit) >= 2 and len(hit) / len(terms) > 0.5:
                return hit
    return set()


def _split_polarity(text: str) -> tuple[set[str], set[str]]:
    """Terms of plain clauses and terms of clauses with a negation cue."""
    asserted: set[str] = set()
    negated: set[str] = set()
    for sentence in tx.prose_sentences(text):
        for clause in _CLAUSE_BREAK.split(sentence):
            target = negated if NEGATION.search(clause) else asserted
            target |= tx.strong_terms(clause)
    return asserted, negated


def _negated_scopes(text: str) -> list[str]:
    """What each negation cue governs: the rest of its clause, with the clause's subject when
    that rest is a bare predicate ("Mutex is not required")."""
    scopes: list[str] = []
    for sentence in tx.prose_sentences(text):
        for clause in _CLAUSE_BREAK.split(sentence):
            for cue in NEGATION.finditer(clause):
                if _RELATIVE.search(clause[:cue.start()]) and cue.start() > 0:
                    continue
                rest = _NEXT_PREDICATE.split(clause[cue.end():])[0]
                scope = NEGATION.sub(" ", rest)
                if _TEMPORAL.search(scope):
                    break
                if len(tx.strong_terms(scope)) < 2:
                    scope = NEGATION.sub(" ", clause[:cue.end()] + rest)
                scopes.append(scope)
                break
    return scopes


def _antonym_flip(note_text: str, cand_text: str) -> set[str]:
    """One note uses a word and the other its opposite, in sentences that otherwise share
    FLIP_TERMS_MIN content words (the subject both speak of). Each text is split into sentences
    once, however many antonym pairs are tried."""
    a, b = note_text.lower(), cand_text.lower()
    sentences_a, sentences_b = tx.prose_sentences(a), tx.prose_sentences(b)
    for x, y in _ANTONYMS:
        for p, q in ((x, y), (y, x)):
            if re.search(rf"\b{q}", a) or re.search(rf"\b{p}", b):
                continue
            used_p, used_q = _sentences_with(p, sentences_a), _sentences_with(q, sentences_b)
            if not (used_p and used_q):
                continue  # no sentence of one side uses its word: no subject in common
            shared = tx.subject_terms(used_p) & tx.subject_terms(used_q)
            if len(shared - tx.strong_terms(f"{p} {q}")) >= FLIP_TERMS_MIN:
                return {f"{p}/{q}"}
    return set()


def _sentences_with(word: str, sentences: list[str]) -> str:
    """The sentences that use `word` (or a word it begins), joined."""
    cue = re.compile(rf"\b{word}")
    return " ".join(s for s in sentences if cue.search(s))
