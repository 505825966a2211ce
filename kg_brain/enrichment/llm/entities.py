"""Offline entity extraction: what a note is about, each thing under one canonical key; and
the subject comparison that keeps notes about different things apart.

Finders run in order and claim the characters they match, so a file path is not also read as a
dotted identifier and a version is not also a date. Known names claim softly: "celery" stays
inside the phrase "celery worker" but is not also a proper noun.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from kg_brain.enrichment.llm import text as tx
from kg_brain.enrichment.llm.facts import Facts, facts_of, is_address, is_region
from kg_brain.enrichment.llm.finders import CODE_FINDERS, Finder, Hit, known_key, phrase_key
from kg_brain.enrichment.llm.phrases import noun_phrases, proper_nouns
from kg_brain.enrichment.llm.types import EntityKind, EntityRef

K = EntityKind

# Kinds that name the subject of a note: two notes each naming one, and no common one, are
# about different things ("the payment worker" vs "the inventory sync").
STRONG_SUBJECTS = frozenset({K.SERVICE, K.PERSON, K.HOST, K.ERROR, K.URL})
# Kinds that separate two notes only when nothing else names a common subject.
WEAK_SUBJECTS = frozenset({K.FILE, K.IDENTIFIER, K.ENV_VAR, K.PROPER_NOUN, K.SETTING})
# Kinds whose entities, on one subject, are values: another path is another fact about it.
VALUE_LIKE = frozenset({K.FILE})
# Kinds specific enough that sharing one makes two notes share a subject.
ANCHORS = STRONG_SUBJECTS | WEAK_SUBJECTS | {K.LIBRARY, K.TOOL, K.PHRASE}

# Deployment environments, by their usual names: the same setting in each is another fact.
_ENVIRONMENT = re.compile(r"\b(?:staging|production|prod|dev|development|qa|uat|"
                          r"preview|sandbox|canary)\b", re.I)
_ENVIRONMENT_KEY = {"prod": "production", "development": "dev"}

_SOFT, _HARD = 1, 2
# (finder, how strongly its hits claim their characters, the claim level that blocks it)
_FINDERS: tuple[tuple[Finder, int, int], ...] = (
    *((f, _HARD if exclusive else _SOFT, _HARD) for f, exclusive in CODE_FINDERS),
    (noun_phrases, _HARD, _HARD),
    (proper_nouns, _HARD, _SOFT),
)


def extract_entities(text: str) -> list[EntityRef]:
    """The entities of a text in order of first mention, one per canonical key."""
    return [EntityRef(key=h.key, name=h.name, kind=h.kind) for h in hits(text)]


def canonical_key(name: str, kind: EntityKind) -> str:
    """The key the extractor would give `name` of `kind`: how entities named elsewhere (by an
    LLM) join the ones found offline."""
    name = " ".join(name.strip().strip("`'\"").split())
    known = known_key(name)
    if known:
        return known
    if kind == K.ENV_VAR:
        return name.lstrip("$").strip("{}").upper()
    if kind in (K.SERVICE, K.PHRASE):
        return phrase_key(re.sub(r"^(?:the|a|an|our|their)\s+", "", name, flags=re.I).split())
    if kind == K.FILE:
        return name.lower().removeprefix("./").rstrip("/")
    return name.lower().rstrip("/") if kind == K.URL else name.lower()


@lru_cache(maxsize=4096)
def hits(text: str) -> tuple[Hit, ...]:
    """Every finder's hits not inside text an earlier finder claimed; cached, since a write
    compares one note with several candidates."""
    claimed: list[tuple[int, int, int]] = []
    found: dict[str, Hit] = {}
    for finder, claim, blocked_by in _FINDERS:
        for hit in finder(text):
            if not hit.key or any(s < hit.end and hit.start < e and level >= blocked_by
                                  for s, e, level in claimed):
                continue
            if hit.key not in found or found[hit.key].start > hit.start:
                found[hit.key] = hit
            claimed.append((hit.start, hit.end, claim))
    return tuple(sorted(found.values(), key=lambda h: h.start))


@dataclass(frozen=True)
class Comparison:
    """How two texts' subjects and stated values relate."""

    shared: frozenset[str]  # entity keys both mention
    shared_anchors: frozenset[str]  # the specific ones among them
    subject_conflict: frozenset[str]  # keys naming a different subject on one side
    value_conflict: frozenset[str]  # slots both state with different values
    facts: tuple[Facts, Facts]


def by_kind(text: str, extra: frozenset[str] = frozenset()) -> dict[EntityKind, set[str]]:
    """Entity keys of a text grouped by kind; `extra` keys (from an LLM) count as phrases."""
    grouped: dict[EntityKind, set[str]] = {}
    for h in hits(text):
        grouped.setdefault(h.kind, set()).add(h.key)
    known = {k for keys in grouped.values() for k in keys}
    if extra - known:
        grouped.setdefault(K.PHRASE, set()).update(extra - known)
    return grouped


def compare(a: str, b: str, extra_a: frozenset[str] = frozenset(),
            extra_b: frozenset[str] = frozenset()) -> Comparison:
    """Shared entities, subjects only one side names (a conflict), and slots both state with
    other values; `extra_*` are entity keys given with the texts (by an LLM)."""
    ka, kb = by_kind(a, extra_a), by_kind(b, extra_b)
    all_a = {k for keys in ka.values() for k in keys}
    all_b = {k for keys in kb.values() for k in keys}
    shared = all_a & all_b
    anchors = {k for kind in ANCHORS for k in ka.get(kind, set()) & kb.get(kind, set())}
    conflict: set[str] = set()
    changed: set[str] = set()
    stems_a, stems_b = _stems(a), _stems(b)
    shared |= _spelled_out(_subject_keys(ka), stems_b) | _spelled_out(_subject_keys(kb), stems_a)
    for kind in STRONG_SUBJECTS | WEAK_SUBJECTS:
        sa, sb = _subjects(ka, kind), _subjects(kb, kind)
        named = {k for k in _spelled_out(sa, stems_b) | _spelled_out(sb, stems_a) if " " in k}
        if sa and sb and not _overlap(sa, sb) and not named:
            if kind in STRONG_SUBJECTS or not anchors:
                conflict |= sa ^ sb
            elif kind in VALUE_LIKE:
                changed.add(kind.value)
    conflict |= _rival_phrases(ka.get(K.PHRASE, set()) - all_b, kb.get(K.PHRASE, set()) - all_a,
                               stems_a, stems_b)
    conflict |= _other_environments(a, b)
    fa, fb = text_facts(a), text_facts(b)
    values = {slot for slot in fa.values.keys() & fb.values.keys()
              if fa.values[slot] != fb.values[slot]}
    values = (values | changed) - conflict
    return Comparison(frozenset(shared), frozenset(anchors), frozenset(conflict),
                      frozenset(values), (fa, fb))


def _other_environments(a: str, b: str) -> set[str]:
    """Deployment environments each text names when they have none in common ("staging has
    16 GB" / "production has 64 GB"): one setting in two places, not one fact."""
    ea, eb = environments(a), environments(b)
    return ea ^ eb if ea and eb and not ea & eb else set()


def environments(text: str) -> set[str]:
    """The deployment environments a text names, by their usual names."""
    return {_ENVIRONMENT_KEY.get(m.group(0).lower(), m.group(0).lower())
            for m in _ENVIRONMENT.finditer(text)}


def _subjects(grouped: dict[EntityKind, set[str]], kind: EntityKind) -> set[str]:
    """Keys of one kind that name a subject: an IP address or localhost is a value."""
    keys = grouped.get(kind, set())
    return {k for k in keys if not is_address(k)} if kind == K.HOST else keys


def _overlap(a: set[str], b: set[str]) -> bool:
    """A key on both sides, or one naming the other more fully ('vite dev server')."""
    return any(x == y or x.endswith(" " + y) or y.endswith(" " + x) for x in a for y in b)


def _spelled_out(keys: set[str], stems: frozenset[str]) -> set[str]:
    """Keys whose every word the other text uses, though its extractor did not find them there
    (a sentence-initial "Obsidian"; "the importer ... suppliers" for "supplier importer")."""
    return {k for k in keys if set(k.split()) <= stems}


def _subject_keys(grouped: dict[EntityKind, set[str]]) -> set[str]:
    return {k for kind in ANCHORS for k in grouped.get(kind, set())}


@lru_cache(maxsize=4096)
def text_facts(text: str) -> Facts:
    """The slots and values a text states (`facts_of` over its own hits), cached like `hits`:
    a write compares its note with every candidate, and each clause stating a slot for every
    slot it compares; callers only read the result."""
    return facts_of(text, hits(text))


@lru_cache(maxsize=1024)
def _stems(text: str) -> frozenset[str]:
    """Cached like `hits`: a write compares its note with several candidates."""
    return frozenset(tx.stem(w) for w in tx.words(text))


def _rival_phrases(only_a: set[str], only_b: set[str], a: frozenset[str],
                   b: frozenset[str]) -> set[str]:
    """Phrases with one head and another modifier ("checkout page" / "cart page"), each
    modifier absent from the other text: two different things of one sort."""
    rivals: set[str] = set()
    for pa in only_a:
        for pb in only_b:
            wa, wb = pa.split(), pb.split()
            if wa[-1] != wb[-1] or len(wa) < 2 or len(wb) < 2:
                continue
            if not any(w in b for w in wa[:-1]) and not any(w in a for w in wb[:-1]):
                rivals |= {pa, pb}
    return rivals


# A name written as one hyphenated or snake_case token ("bo-worker-07", "tg-promo-api",
# "max_overflow"), not a part of a host, path, image tag or version.
_COMPOUND = re.compile(r"(?<![\w./:@-])[a-z][a-z0-9]*(?:[-_][a-z0-9]+)+(?![\w/@-]|[.:]\w)",
                       re.I)


def rival_names(a: str, b: str) -> frozenset[str]:
    """Names of one family that each text gives and the other does not ("bramble-sms" /
    "bramble-audit", "bo-worker-07" / "bo-report-01", "max_connections" / "max_overflow": the
    first or the last part the same, the rest another): two things of one sort, so a value each
    states is not one setting's old and new value. A deployment region is a value, not a name."""
    na, nb = _compounds(a), _compounds(b)
    rivals: set[str] = set()
    for x in na - nb:
        for y in nb - na:
            px, py = re.split(r"[-_]", x), re.split(r"[-_]", y)
            if px[0] == py[0] or px[-1] == py[-1]:
                rivals |= {x, y}
    return frozenset(rivals)


@lru_cache(maxsize=1024)
def _compounds(text: str) -> frozenset[str]:
    return frozenset(m.group(0).lower() for m in _COMPOUND.finditer(text)
                     if not is_region(m.group(0).lower()))


def subjects_differ(a: str, b: str) -> bool:
    """True when two notes are about different things (another service, file, person) or
    state a different value (port, version, setting) however alike their wording: such
    notes are never merged as duplicates."""
    cmp = compare(a, b)
    return bool(cmp.subject_conflict or cmp.value_conflict)


# An owner named in the possessive and the word it owns: after a determiner with the word before
# it ("the nightly job's retry limit", "the web nodes' disk"), else one word ("tessera's queue";
# not the verb of "Lowered Kafka's retention").
_POSSESSIVE = re.compile(r"(?:\b(?:the|a|an|our|their|its|this|that|each|every)\s+"
                         r"((?:[A-Za-z][\w-]*\s+)?[A-Za-z][\w-]*)|\b([A-Za-z][\w-]*))"
                         r"(?:['’]s|(?<=s)['’])\s+([A-Za-z][\w-]*)", re.I)


def owners_apart(new: str, old: str) -> bool:
    """The texts give one thing different owners: each names an owner of it in the possessive
    with a word the other text never uses ("the mailer's batch size was raised to 500" / "the
    scraper's batch size is 50"), or one names its owner's head with another word before it
    than the other does ("grew the APAC pool's node count" / "the EMEA pool runs 6 nodes"):
    two things' settings, not one changed."""
    terms_new, terms_old = tx.content_terms(new), tx.content_terms(old)
    owned_old = {tx.stem(w): owners for w, owners in _owners(old).items()}
    for owned, owners in _owners(new).items():
        for rival in owned_old.get(tx.stem(owned), ()):
            if any(tx.content_terms(o) - terms_old for o in owners) and (
                    tx.content_terms(rival) - terms_new):
                return True
    return _rival_owner(new, old) or _rival_owner(old, new)


def _owners(text: str) -> dict[str, list[str]]:
    """Each word owned in the possessive, lower-cased, with its owners as written."""
    found: dict[str, list[str]] = {}
    for m in _POSSESSIVE.finditer(text):
        found.setdefault(m.group(3).lower(), []).append(m.group(1) or m.group(2))
    return found


def _rival_owner(text: str, other: str) -> bool:
    """An owner of `text` of two words whose head `other` gives after another word (a word in
    capitals names a thing: "the US cluster's")."""
    words = tx.words(other)
    for owners in _owners(text).values():
        for owner in owners:
            parts = tx.words(owner)
            if (len(parts) != 2 or parts[0] in words
                    or parts[0] in tx.STOPWORDS and not owner.split()[0].isupper()):
                continue
            head = tx.stem(parts[1])
            if any(tx.stem(w) == head and before not in tx.STOPWORDS
                   for before, w in zip(words, words[1:], strict=False)):
                return True
    return False
