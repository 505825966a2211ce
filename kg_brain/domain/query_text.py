"""What a search sends the indexes from the query's text: its words (each alone, for
search_memory's per-project idf), its identifiers as escaped phrases, the project as a
zero-boost filter, and what the text says about the question (it names what it asks for, it
asks for an earlier value)."""

from __future__ import annotations

import re
from typing import Literal

from kg_brain.base.vocab import FULLTEXT_INDEX, WORD_INDEX
from kg_brain.enrichment.llm.text import STOPWORDS, WEAK_WORDS
from kg_brain.store.search import LexTerm
from kg_brain.store.share import STOP_WORDS

_WORD = re.compile(r"\w+")
# Identifiers: a query's whitespace- or bracket-separated tokens (_TOKEN), outer punctuation
# stripped, that hold a digit, an underscore, a dot or colon inside, a dash between letters or
# digits, or a lower-case letter before a capital (camelCase): PAY-1432, E0502,
# ingest.batch.max_rows, file.py:412, ERR_OSSL_EVP_UNSUPPORTED, 3f9c2ab, listen-metrics-urls,
# #212 (then 212), !45, --locked; not plain words.
_EDGES = re.compile(r"^\W+|\W+$")
_LEAD = re.compile(r"^\W+")
# A bracketed index or key right after a word (Terraform's module.vpc.aws_subnet.private[0]
# and aws_instance.web["blue"], a Python or JS subscript) belongs to the token: without it
# every element of the list is the same identifier.
_INDEX = r"(?<=\w)\[(?:\d+|\"[\w./:-]+\"|'[\w./:-]+')\]"
_TOKEN = re.compile(rf"(?:{_INDEX}|[^\s()\[\]{{}}<>\"'`=,;|])+")
_INDEXED = re.compile(rf"(.*\w{_INDEX})\W*", re.DOTALL)
# An issue or pull request number as written ("PR #212", "fixed in #4417"), or a GitLab merge
# request's ("MR !45"): its holder states that reference, a note holding the bare number may
# state a count ("212 requests"). The bare number stays a term after it, so a note citing
# "PR 212" still holds one.
_REFERENCE = re.compile(r"[#!]\d+")
# A long command-line option of one word (--timeout, --locked): a plain word without its
# dashes, a flag with them (--max-old-space-size is an identifier without them).
_FLAG = re.compile(r"--[^\W_]+")
_IDENTIFIER = re.compile(r"\d|_|\w[.:]\w|[^\W_]-[^\W_]|[a-z][A-Z]")
# Letters joined by dashes (cherry-picked, read-only, listen-metrics-urls) make an English
# compound as often as a name. Beside an identifier of another shape (a hash, a key, a path:
# "why was 3c5ab03 cherry-picked?") the query names that one: the dashed word counts for
# WEAK_SHARE of an identifier in the exact signal, and a hit holding it alone does not show
# that what the query names is stored (codes).
_DASHED = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)+")
WEAK_SHARE = 0.5
IDENTIFIER_CHARS = (3, 100)  # shorter tokens (v2, S3) say little; longer ones are no names
MAX_IDENTIFIERS = 8
# A query of identifiers and at most this many other words names what it asks for ("GLS-233",
# "what was CHI-561 about?"): the note holding the identifier answers it, not the fix of that
# note. Chosen on the coding tuning split: such questions have 0-8 other words, symptoms that
# quote an identifier 5-18.
NAMING_WORDS = 4
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
# fulls run?"): its clauses, split at a comma, a semicolon, or an "and" that opens another
# question (a wh-word follows), each after the topic a leading "topic: " names. A text of
# more than MAX_CLAUSES of them (a pasted log, a list) is read as one.
_TOPIC = re.compile(r"^([^:?]{2,60}):\s+(.*)$", re.DOTALL)
_CLAUSE = re.compile(r",\s*(?:and\s+|then\s+)?|;\s*|\s+and\s+(?=(?:what|which|how|why|where|"
                     r"when|who|whose|in what|what's)\b)")
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
               for w in (_EDGES.sub("", x) for x in re.split(r"[\s/]+", m.group(1).lower())))


MAX_QUERY_TERMS = 64
# search_memory asks the note index once per query word and field: a long query (a pasted log)
# is cut to its first words
MAX_LEX_WORDS = 32


def lucene_query(text: str) -> str:
    """Word tokens only, lower-cased (so AND/OR/NOT are plain words), OR-ed by Lucene's default:
    no user character ever reaches the query parser as syntax."""
    seen: dict[str, None] = {}
    for token in _WORD.findall(text.lower()):
        seen.setdefault(token.strip("_"), None)
    return " ".join(t for t in list(seen)[:MAX_QUERY_TERMS] if t)


def identifiers(text: str) -> list[str]:
    """The query's identifier-like tokens (see _IDENTIFIER), lower-cased, at most
    MAX_IDENTIFIERS: what a note holding them verbatim is matched on."""
    seen: dict[str, None] = {}
    low, high = IDENTIFIER_CHARS
    for raw in _TOKEN.findall(text):
        token = _token(raw)
        for mark in "#!":
            reference = mark + token
            if _REFERENCE.fullmatch(reference) and reference in raw and len(reference) >= low:
                seen.setdefault(reference, None)
        if low <= len(token) <= high and _IDENTIFIER.search(token):
            seen.setdefault(token.lower(), None)
        elif _FLAG.fullmatch(flag := "--" + token) and flag in raw and len(flag) <= high:
            seen.setdefault(flag.lower(), None)
    return list(seen)[:MAX_IDENTIFIERS]


def _token(raw: str) -> str:
    """A query token without its outer punctuation, but a bracketed index it ends with."""
    lead = _LEAD.sub("", raw)
    return m.group(1) if (m := _INDEXED.fullmatch(lead)) is not None else _EDGES.sub("", lead)


def codes(terms: list[str]) -> list[str]:
    """The identifiers of `terms` (from identifiers) that say what the query names: those of
    another shape than letters joined by dashes when it holds one, else all."""
    return [t for t in terms if not _DASHED.fullmatch(t)] or terms


def shares(terms: list[str]) -> list[float]:
    """Each identifier's share of the exact signal: 1 for a code (codes), WEAK_SHARE for a
    dashed word beside one."""
    named = codes(terms)
    return [1.0 if t in named else WEAK_SHARE for t in terms]


def names(text: str, terms: list[str]) -> bool:
    """Whether the query names what it asks for: it holds an identifier (`terms`) and at most
    NAMING_WORDS words outside its identifiers."""
    return bool(terms) and len([w for w in lucene_query(text).split()
                                if not any(w in t for t in terms)]) <= NAMING_WORDS


_LOWER_CAMEL = re.compile(r"[a-z]+[A-Z]\w*")
# A question about a code in more words ("what did we do about CVE-2024-1234?", "why does the
# plan touch module.vpc.aws_subnet.private[0]?"): a code mixing letters with digits, an
# underscore or punctuation inside (not a number nor a version, which a question may name as
# the value after the one it asks for; not a dashed word, see codes) and at most CODE_WORDS
# content words (content_word) beside its identifiers. Chosen on the coding tuning split: at
# 2 every question it adds has its answer holding the code; at 3 one loses it ("k8s version
# on the batch cluster"); no nothing-stored question is added past 2.
CODE_WORDS = 2
_MIXED = re.compile(r"(?=.*[^\W\d_])(?=.*(?:\d|_|\w[.:/]\w))")


def by_code(text: str, terms: list[str]) -> bool:
    """Whether the query names what it asks for (names) by a code: an identifier with a digit,
    an underscore, or a dot, colon or dash inside, or a camelCase name starting lower-case
    (useSocketRetry; not a product's name, PgBouncer, that a note may write pg bouncer), or
    in more words by a code mixing letters and digits (_MIXED, CODE_WORDS). No note holding
    one of its codes among the hits, nothing is stored of it: a look-alike (KG-1234 for
    KG-123) is no answer."""
    if any(_MIXED.match(t) for t in codes(terms)) and len(
            [w for w in lucene_query(text).split()
             if content_word(w) and not any(w in t for t in terms)]) <= CODE_WORDS:
        return True
    return names(text, terms) and (
        any(_IDENTIFIER.search(t) or _FLAG.fullmatch(t) for t in terms)
        or any(_LOWER_CAMEL.fullmatch(_EDGES.sub("", raw)) for raw in _TOKEN.findall(text)))


def exact_query(terms: list[str]) -> str:
    """The note index's query for `terms`: each a quoted phrase (only a backslash and a quote
    are special inside one, both escaped) in the content and title fields; the index's own
    analyzer splits a phrase as it split the notes, so `PAY-1432` finds the words `pay 1432`
    side by side and the statement then checks the note holds `pay-1432` itself."""
    if not terms:
        return ""
    phrases = " ".join(_phrase(s) for t in terms for s in _spellings(t))
    return f"content:({phrases}) title:({phrases})"


# A version is written with or without a leading v (v1.4.0-rc.2, 1.4.0-rc.2, v2.8): either
# stands for the other, as the note index keeps each a word of its own.
_VERSION = re.compile(r"v?(\d+\.\d+[\w.+-]*)")


def _spellings(term: str) -> list[str]:
    """`term` and, for a version, its other spelling (with or without the v)."""
    if (m := _VERSION.fullmatch(term)) is None:
        return [term]
    return [term, m.group(1) if term.startswith("v") else "v" + term]


# A short commit hash (hex digits and letters, at least 7) stands for every longer hash it
# starts: a note holding the full hash holds it; so does one ending an identifier
# (sha256:9f86d08 of a digest, the end of a range abc1234..def5678).
_HASH = re.compile(r"(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,39}")
# What may stand beside a held identifier: anything but a letter, digit or underscore, so a
# longer identifier does not hold a shorter one it starts or ends with (KG-1234 is not KG-123,
# db.py:420 not db.py:42, ERR_CONN_RESET_V2 not ERR_CONN_RESET), and one after a dot or slash
# is held (analytics.looker_scratch holds looker_scratch, src/app/db.py holds app/db.py); an
# English ending after it is its own (504s, self-hosted).
_BESIDE = "[a-z0-9_]"
_ENDING = "(?:s|es|ed|ing)?"
# Inside an identifier, any run of punctuation stands for any other (no space): a note writing
# ledger\\models.py:212 or ERR-CONN-RESET holds ledger/models.py:212 and ERR_CONN_RESET.
_PARTS = re.compile(r"[^\W_]+|[\W_]+")
_APART = "[^a-z0-9\\s]+"
# An identifier the note index may keep inside a longer word (its words join at dots and
# underscores): letters, digits, underscores and dots only.
_INSIDE = re.compile(r"[a-z0-9_.]+")


def identifier_pattern(term: str) -> str:
    """The regular expression (Java's, as Cypher's =~ reads it, and Python's) a lower-cased
    text matches in full when it holds the identifier `term` (lower-cased) as written (but any
    punctuation inside, _PARTS), nothing of an identifier beside it but an ending (_ENDING) or
    the rest of a hash a short hash starts; a version with or without its v (_VERSION)."""
    lead = ""
    if (version := _VERSION.fullmatch(term)) is not None:
        lead, term = "v?", version.group(1)
    parts = _PARTS.findall(term)
    rest = "[0-9a-f]*" if parts and _HASH.fullmatch(parts[-1]) else ""
    written = "".join(
        p if p[0].isalnum() else _APART if 0 < i < len(parts) - 1
        else "".join("\\" + c for c in p) for i, p in enumerate(parts))
    return f"(?s).*(?<!{_BESIDE}){lead}{written}{rest}{_ENDING}(?!{_BESIDE}).*"


def holds_identifier(text: str, term: str) -> bool:
    """Whether `text` holds the identifier `term` as fragments/exact_matches reads it."""
    return re.fullmatch(identifier_pattern(term), text.lower()) is not None


def inside_query(terms: list[str]) -> str:
    """The word index's query for the identifiers of `terms` the note index may keep inside a
    longer word (_INSIDE), and for the short hash ending one (`sha256:9f86d08`: the note
    index keeps a digest's hex a word of its own): each a wildcard (`*looker_scratch*`,
    `*9f86d08*`) in the content and title fields; '' for none."""
    inside = " ".join(f"*{w}*" for w in dict.fromkeys(
        t if _INSIDE.fullmatch(t) else _PARTS.findall(t)[-1] for t in terms
        if _INSIDE.fullmatch(t) or _HASH.fullmatch(_PARTS.findall(t)[-1])))
    return f"content:({inside}) title:({inside})" if inside else ""


def _phrase(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def in_project(query: str, project: str) -> str:
    """`query` (a note index query) kept to `project`'s notes inside the index: the project as
    a required phrase in the index's project field at boost 0, so it filters and adds nothing
    to the score; the statements still check n.project (the analyzer folds case and splits at
    '-' and the phrase matches inside a longer name, so `kg-brain` also matches the notes of
    `kg-brain-web`)."""
    return f"+({query}) +project:{_phrase(project)}^0" if query else ""


def word_queries(words: str, boosts: dict[str, float], project: str,
                 as_written: float) -> list[LexTerm]:
    """The searches' lexical channel: each of `words` (from lucene_query) but the index's stop
    words, at most MAX_LEX_WORDS, alone in every field with a positive boost (fielded_query: a
    note read as one document, its fields weighed by their boosts), kept to `project`: the
    statement counts each one's hits in the project for an idf of the project's own. Each word
    is asked of the stemmed index (its scores weigh 1 - `as_written`; its hits count as rare
    words, and a content word there that no note holds as an unknown word) and, when
    `as_written` > 0, of the index of words as written (weighing `as_written`)."""
    kept = [w for w in words.split() if w not in STOP_WORDS][:MAX_LEX_WORDS]
    shares = [(FULLTEXT_INDEX, 1.0 - as_written), (WORD_INDEX, as_written)]
    return [{"query": in_project(fielded_query(word, boosts), project), "whole": False,
             "index": index, "share": share, "rare": index == FULLTEXT_INDEX,
             "content": index == FULLTEXT_INDEX and content_word(word)}
            for word in kept for index, share in shares if share > 0]


def content_word(word: str) -> bool:
    """Whether a query word (from lucene_query) names something a note would hold: not a stop
    word nor a weak word (a question's own words: "how", "why", "did", "use", "get"), not a
    single letter (the rest of "don't"), not a number (a version's parts)."""
    return len(word) > 1 and not word.isdigit() and word not in _NOT_CONTENT


_NOT_CONTENT = STOPWORDS | WEAK_WORDS


def whole_query(query: str) -> list[LexTerm]:
    """The lexical channel of a project too large to count each word's hits in: `query` (a
    fielded query kept to the project) scored as the stemmed index scores it ([] if empty)."""
    return [{"query": query, "whole": True, "index": FULLTEXT_INDEX, "share": 1.0,
             "rare": False, "content": False}] if query else []


def fielded_query(words: str, boosts: dict[str, float]) -> str:
    """The note index's query: `words` (from lucene_query) in each field with a positive boost.
    A note's own words are its content; its title is mostly the content's first line, its
    keywords are drawn from it, and its context is written from other notes (evolution), so
    those fields weigh less or nothing."""
    if not words:
        return ""
    return " ".join(f"{field}:({words})" if boost == 1 else f"{field}:({words})^{boost:g}"
                    for field, boost in boosts.items() if boost > 0)
