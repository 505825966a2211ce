"""What a question says about what it asks for, beside its words: an earlier value (the first,
or the one before another), the numbers it names, the shape of value it asks for and its
subject, its clauses when it asks several things, and whether it asks for several things."""

from __future__ import annotations

import re
from typing import Literal

from kg_brain.domain.query_text import EDGES, content_word

# A question asking for an earlier value: the old note of a subject ranks first, not the
# newest. Told by a few general markers, not by how the tuning questions happen to be worded:
# - one naming the present (PRESENT: "now", "currently", "still", "as of today", "latest")
#   asks for the current value, whatever else it says ("how many seconds before the warehouse
#   suspends itself now?", "is the db still on the old class?");
# - a past marker (PAST: "originally", "initially", "previously", "earlier", "prior", "old",
#   "used to", "pre-16", "back when") asks for history;
# - "before", "until" or "first" asks for history unless the question is in the present tense
#   and not the past ("pool size before we went to 60?", "the first credit cap?", "how many
#   workers did we have before going to five?", but "how long does a session last before it
#   expires?", "what share gets a release on the first day?");
# - "start", "began", "launched" asks for history in the past tense ("which Go did the repo
#   start on?", "terraform version we launched with", not "when does the nightly DAG start?");
# - an age ("how old is she?", "a two-year-old", "30 days old") is no earlier value.
# Chosen on the coding tuning split's current-value and history questions and on two sets of
# other wordings of them (bench/data/coding/tune-rewordings-values-*.json, scored by
# `python -m bench.fit_ranking MANIFEST --rewordings FILE...`): the regexes before these,
# matched to the questions as written, told 317 of the 440 reworded questions apart (history
# or current value), these 434 (both tell the 110 as written apart).
PRESENT = re.compile(r"\b(?:now|currently|current|today|these days|nowadays|still|latest|"
                     r"at the moment|in effect)\b", re.IGNORECASE)
PAST = re.compile(r"\b(?:originally|original|initially|initial|previously|previous|formerly|"
                  r"earlier|earliest|prior|old|used to|use to)\b|\bpre-|"
                  r"\bback (?:when|then|at|before|in)\b", re.IGNORECASE)
_CHANGE = re.compile(r"\b(?:before|until|first)\b", re.IGNORECASE)
_AGE = re.compile(r"\bhow old\b|\b(?:years?|months?|weeks?|days?)[- ]old\b", re.IGNORECASE)
_BEGIN = re.compile(r"\b(?:start(?:ed)?|began|begin|launch(?:ed)?)\b", re.IGNORECASE)
_WAS = re.compile(r"\b(?:was|were|did|had)\b", re.IGNORECASE)
_PAST_TENSE = re.compile(_WAS.pattern + r"|\b[a-z]{3,}ed\b", re.IGNORECASE)
_PRESENT_TENSE = re.compile(r"\b(?:do|does|is|are|has|have|can|may|will|gets?|takes?)\b|"
                            r"\b(?:what|it|that|there|who|where|how)'s\b", re.IGNORECASE)
# Of those, a question asking for the first value ("originally", "at first", "did the repo
# start on?"): the oldest note of the subject ranks first. Any other ("before we went to 60",
# "right before 1.8", "prior to the resize") asks for the value just before the one it names
# or the newest: one hit stating a value yields to the note stated just before it alone (the
# note that set a number the question names, or the best hit; fragments/current_first).
FIRST_VALUE = re.compile(r"\b(?:originally|original|initially|initial|first|earliest|"
                         r"start(?:ed)?|began|begin|launch(?:ed)?|used to|use to)\b",
                         re.IGNORECASE)
Earlier = Literal["first", "before"]
# A number the question names ("before we went to 60", "right before 1.8", "before PG16"):
# digits and dots, not inside another number. Asked for the value just before one, the note
# stating the named value is the one that yields (fragments/current_first).
_NUMBER = re.compile(r"(?<![\d.])\d+(?:\.\d+)*")


def numbers(text: str) -> list[str]:
    """The numbers `text` names, each once, in order."""
    return list(dict.fromkeys(m.group(0) for m in _NUMBER.finditer(text)))


def holds_number(text: str, number: str) -> bool:
    """Whether `text` states `number`: not after a digit or a dot, not before a digit (1.8
    holds in 1.8.3, 60 in 60%, 16 in pg16; not 16 in 160 nor in 2.16), as
    fragments/current_first reads it."""
    return re.search(rf"(?<![\d.]){re.escape(number)}(?!\d)", text) is not None


def earlier(text: str) -> Earlier | None:
    """What earlier value the question asks for: the first ("first"), the one just before the
    one it names or the newest ("before"), or none (None: the current value)."""
    if PRESENT.search(text):
        return None
    text = _AGE.sub(" ", text)
    if not (PAST.search(text)
            or _CHANGE.search(text) and (_WAS.search(text) or not _PRESENT_TENSE.search(text))
            or _BEGIN.search(text) and _PAST_TENSE.search(text)):
        return None
    return "first" if FIRST_VALUE.search(text) else "before"


# A question asking for a value of some shape ("which kotlin version ...", "how long ...", "what
# share ...") and the subject it names: among the hits, a note yields to a later one of that
# subject restating its value of that shape beside another ("5% now (was 10%)", "2.0.20 (from
# 2.0.0)"), fragments/current_first. The shapes as the statement reads a note's values (each a
# text "<shape>:<value>"): a version (1.8.3, v2), a percentage (10%), an amount of money ($400),
# a port (host:8080), an instance class (db.r6g.xlarge), a number with a unit of time or size
# (30 days, 898s, 500 gb: "q:<unit>:"). A question about a count ("how many", "limit", "size")
# asks for a number with a unit. Chosen on the coding tuning split (docs/bench/tune/current39-*).
VALUE_ASKS = (
    ("version:", re.compile(r"\b(?:version|release)\b")),
    ("q:", re.compile(r"\bhow long\b|\bhow many (?:ms|seconds|minutes|hours|days|weeks|months|"
                      r"years)\b|\b(?:ttl|timeout|retention|lifetime|interval)\b")),
    ("pct:", re.compile(r"\b(?:share|percent|percentage|ratio)\b|%")),
    ("port:", re.compile(r"\bport\b")),
    ("class:", re.compile(r"\b(?:instance|class|tier)\b")),
    ("money:", re.compile(r"\b(?:budget|cost|price|spend)\b|\$")),
    ("q:", re.compile(r"\bhow (?:many|much|big|large)\b|"
                      r"\b(?:limit|cap|max|min|maximum|minimum|size|count|number of)\b")))
# a number's unit, as the statement names it in a value ("q:d:30" for "30 days" and "30d")
VALUE_UNITS = {
    "ms": "ms", "s": "s", "sec": "s", "secs": "s", "second": "s", "seconds": "s", "m": "min",
    "min": "min", "mins": "min", "minute": "min", "minutes": "min", "h": "h", "hr": "h",
    "hrs": "h", "hour": "h", "hours": "h", "d": "d", "day": "d", "days": "d", "week": "w",
    "weeks": "w", "month": "mo", "months": "mo", "year": "y", "years": "y", "kb": "kb",
    "mb": "mb", "gb": "gb", "tb": "tb", "kib": "kb", "mib": "mb", "gib": "gb", "tib": "tb"}
# what splits a note's text into words (then one trailing . : ! or ? dropped) ...
VALUE_SPLIT = (" ", "\n", "\t", "(", ")", ",", ";", '"', "'", "`", "[", "]", "{", "}", "=", "<",
               ">", "|", "*")
# ... and what is dropped to compare names: "day-one" is held by "on day one"
NAME_GLUE = (*VALUE_SPLIT, "-", "_", ".", ":", "/", "%", "$", "#", "@", "!", "?", "+", "&", "~")
_SUBJECT = re.compile(r"[a-z0-9]+")


def value_shapes(text: str) -> list[str]:
    """The shapes of value the question asks for (VALUE_ASKS), each once."""
    low = text.lower()
    return sorted({shape for shape, asks in VALUE_ASKS if asks.search(low)})


def subject_words(text: str) -> list[str]:
    """The question's content words of three or more letters, a plural's s dropped: the subject
    two notes must both name (each held as itself or with an s)."""
    return sorted({w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
                   for w in _SUBJECT.findall(text.lower())
                   if len(w) > 2 and not w.isdigit() and content_word(w)})


def glued(text: str) -> str:
    """`text` lower-cased without NAME_GLUE: what a name is looked for in."""
    out = text.lower()
    for c in NAME_GLUE:
        out = out.replace(c, "")
    return out


# A question asking several things ("pgbackrest: where does the repo live and when do the
# fulls run?"): its clauses, split at a comma (not one before a number: "on 9 April, 2023"
# asks one thing), a semicolon, or an "and" that opens another question (a wh-word follows),
# each after the topic a leading "topic: " names. A text of more than MAX_CLAUSES of them (a
# pasted log, a list) is read as one.
_TOPIC = re.compile(r"^([^:?]{2,60}):\s+(.*)$", re.DOTALL)
_CLAUSE = re.compile(r",(?!\s*\d)\s*(?:and\s+|then\s+)?|;\s*|\s+and\s+(?=(?:what|which|how|why|"
                     r"where|when|who|whose|in what|what's)\b)")
MAX_CLAUSES = 4


def clauses(text: str) -> list[str]:
    """The clauses of a question asking several things, each with its topic; [] for one."""
    rest = text.strip().rstrip("?").strip()
    topic = ""
    if (m := _TOPIC.match(rest)) is not None:
        topic, rest = m.group(1), m.group(2)
    parts = [f"{topic} {p.strip()}".strip() for p in _CLAUSE.split(rest) if p.strip()]
    return parts if 2 <= len(parts) <= MAX_CLAUSES else []


# a question asking for several things (what a person did over many sessions) names them in
# the plural right after its question word: "which countries ...", "what musical instruments ..."
_ASKS = re.compile(r"\b(?:what|which)((?:\s+\S+){1,2})", re.IGNORECASE)
_PLURAL = re.compile(r"[a-z][a-z-]+[^s\W]s")
_NOT_PLURAL = frozenset({"does", "this"})


def asks_for_many(text: str) -> bool:
    """Whether a question asks for several things: a word of letters (and hyphens) of more than
    three ending in s but not ss among the two after a what or which (a/b counts as one)."""
    return any(_PLURAL.fullmatch(w) and w not in _NOT_PLURAL
               for m in _ASKS.finditer(text)
               for w in (EDGES.sub("", x) for x in re.split(r"[\s/]+", m.group(1).lower())))
