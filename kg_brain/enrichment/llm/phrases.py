"""Finders for entities written in words rather than code: noun phrases headed by a service or
artefact word ("the payments worker", "inventory sync", "the orders table"), people and other
proper nouns. Without a part-of-speech tagger, the cues are a closed list of head nouns,
determiners and word shapes; a capital at the start of a sentence means nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kg_brain.enrichment.llm import lexicon as lx
from kg_brain.enrichment.llm import text as tx
from kg_brain.enrichment.llm.finders import Hit, known_key, phrase_key
from kg_brain.enrichment.llm.types import EntityKind

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*")
_POSSESSIVE = re.compile(r"(?:'s|’s|'|’)(?![A-Za-z])")
_DETERMINERS = frozenset("the a an our their its this that these those each every my your his "
                         "her".split())
_NOT_VERBS = frozenset("seed feed speed need embed shred bed red bleed breed reply supply "
                       "assembly family anomaly poly only early daily weekly monthly nightly "
                       "hourly yearly friendly".split())
_VERBS = frozenset("said says told tells broke thrown threw hit hits sent sends spent hung "
                   "lost wrote written took taken gave given ran went came shows showed shown "
                   "forgot forgets missed misses caught catches leaks leaked drops dropped".split())
_SENTENCE_START = re.compile(r"(?:^|[.!?]\s+|\n\s*(?:[-*+>]|\d+[.)]|#+)?\s*|:\s+|[\"'(\[]\s*)"
                             r"(?=[A-Za-z@])")
_PERSON_CUE = re.compile(r"\b(?:by|with|from|per|asked|ask|told|tell|cc|thanks|ping|owner|"
                         r"reviewer|according to)\s*:?\s*$", re.I)
_HANDLE = re.compile(r"(?<![\w.])@([a-z][\w-]{1,30})\b(?!/)")
_CAPITALS = re.compile(r"(?<![\w.@$/-])[A-Z][A-Za-z0-9]*(?:[ ][A-Z][A-Za-z0-9]*)*(?![\w/-])")
_SKIP_CAPITALS = frozenset("i monday tuesday wednesday thursday friday saturday sunday today "
                           "tomorrow yesterday".split()) | frozenset(lx.MONTHS)


def sentence_starts(text: str) -> frozenset[int]:
    """Offsets where a sentence, list item, heading or quotation begins."""
    return frozenset(m.end() for m in _SENTENCE_START.finditer(text))


def _verbish(word: str) -> bool:
    """Words that end a noun phrase: verbs, adverbs, stop words and people's names."""
    if word in lx.HEAD_NOUNS or word in _NOT_VERBS:
        return False
    return (word in tx.WEAK_WORDS or word in _VERBS or word in lx.FIRST_NAMES
            or word in tx.STOPWORDS or (len(word) > 4 and word.endswith(("ed", "ly"))))


def _runs(text: str) -> Iterator[tuple[list[re.Match[str]], bool]]:
    """Runs of content words joined by single spaces; with whether a determiner (or a sentence
    start) leads them. A possessive ends its run."""
    starts = sentence_starts(text)
    run: list[re.Match[str]] = []
    led = False
    prev_end = -1
    prev_word = ""
    for m in _WORD.finditer(text):
        word = m.group(0)
        low = word.lower()
        gap_ok = bool(run) and text[prev_end:m.start()] == " "
        capital = word[0].isupper() and m.start() not in starts and known_key(word) is None
        content = not _verbish(low) and len(low) > 1 and not capital and not word.isupper()
        if run and not (gap_ok and content):
            yield run, led
            run = []
        if content:
            if not run:
                adjacent = text[prev_end:m.start()].strip() == ""
                led = m.start() in starts or (adjacent and prev_word in _DETERMINERS)
            run.append(m)
            if _POSSESSIVE.match(text, m.end()):
                yield run, led
                run = []
        prev_end = m.end()
        prev_word = low
    if run:
        yield run, led


def _trimmed(words: list[str]) -> list[str]:
    while words and (words[0] in lx.GENERIC_MODIFIERS or words[0] in tx.WEAK_WORDS):
        words = words[1:]
    return words


def noun_phrases(text: str) -> Iterator[Hit]:
    """Two- or three-word phrases ending in a head noun; services when the head is one."""
    for run, led in _runs(text):
        words = [m.group(0).lower() for m in run]
        heads = [tx.stem(w) in lx.HEAD_NOUNS or _service(w) for w in words]
        emitted = False
        after = 0  # phrases do not overlap
        for i, is_head in enumerate(heads):
            if not is_head or (i + 1 < len(heads) and heads[i + 1] and (
                    _service(words[i + 1]) or not _service(words[i]))):
                continue
            first = max(after, i - 2)
            span = _trimmed(words[first:i + 1])
            first = i + 1 - len(span)
            after = i + 1
            if span and (len(span) >= 2 or "-" in span[-1]) and not _generic(span):
                emitted = True
                yield _phrase_hit(text, run[first:i + 1], span)
        if not emitted and led and len(words) == 2 and not words[1].endswith("s"):
            span = _trimmed(words)
            if len(span) == 2 and not _generic(span):
                yield _phrase_hit(text, run, span)


def _service(word: str) -> bool:
    return tx.stem(word.split("-")[-1]) in lx.SERVICE_HEADS


def _generic(words: list[str]) -> bool:
    return all(tx.stem(w) in lx.GENERIC_NOUNS for w in words)


def _phrase_hit(text: str, run: list[re.Match[str]], words: list[str]) -> Hit:
    kind = EntityKind.SERVICE if _service(words[-1]) else EntityKind.PHRASE
    start, end = run[0].start(), run[-1].end()
    return Hit(start, end, text[start:end], kind, phrase_key(words))


def proper_nouns(text: str) -> Iterator[Hit]:
    """Capitalised names not at a sentence start; people by first name, handle or cue."""
    starts = sentence_starts(text)
    for m in _HANDLE.finditer(text):
        yield Hit(m.start(), m.end(), m.group(0), EntityKind.PERSON, m.group(1).lower())
    for line_start, line in _prose_lines(text):
        for m in _CAPITALS.finditer(line):
            yield from _name_hits(text, line_start + m.start(), m.group(0).split(" "), starts)


def _prose_lines(text: str) -> Iterator[tuple[int, str]]:
    offset = 0
    for line in text.splitlines(keepends=True):
        if not line.lstrip().startswith(("#", "```")):
            yield offset, line
        offset += len(line)


def _name_hits(text: str, start: int, words: list[str], starts: frozenset[int]
               ) -> Iterator[Hit]:
    """The name inside a run of capitalised words, split at acronyms and stop words."""
    group: list[str] = []
    group_start = start
    for word in [*words, ""]:
        low = word.lower()
        initial = start in starts and low not in lx.FIRST_NAMES
        breaks = (not word or initial or word in lx.COMMON_ACRONYMS or low in tx.STOPWORDS
                  or low in _SKIP_CAPITALS or known_key(word) is not None or len(word) < 2)
        if breaks:
            if group:
                yield _name_hit(text, group_start, group)
            group = []
            group_start = start + len(word) + 1
        else:
            group.append(word)
        start += len(word) + 1


def _name_hit(text: str, start: int, words: list[str]) -> Hit:
    name = " ".join(words)
    first = words[0].lower()
    titled = all(w[1:].islower() for w in words)
    person = titled and len(words) <= 3 and (
        first in lx.FIRST_NAMES or bool(_PERSON_CUE.search(text[:start])))
    kind = EntityKind.PERSON if person else EntityKind.PROPER_NOUN
    return Hit(start, start + len(name), name, kind, name.lower())
