"""What a search sends the indexes from the query's text: its words (each alone, for
search_memory's per-project idf), its identifiers as escaped phrases, the project as a
zero-boost filter, and whether the query names what it asks for (what else the question says:
kg_brain/domain/question.py)."""

from __future__ import annotations

import re

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
EDGES = re.compile(r"^\W+|\W+$")
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
    return m.group(1) if (m := _INDEXED.fullmatch(lead)) is not None else EDGES.sub("", lead)


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
        or any(_LOWER_CAMEL.fullmatch(EDGES.sub("", raw)) for raw in _TOKEN.findall(text)))


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
