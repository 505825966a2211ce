"""Finders for the offline entity extractor: each scans a text for one shape of entity
(URLs, hosts and ports, dates, errors, paths, environment variables, settings, libraries,
versions, inline code, identifiers, known names) and yields hits with canonical keys.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from kg_brain.enrichment.llm import lexicon as lx
from kg_brain.enrichment.llm import text as tx
from kg_brain.enrichment.llm.types import EntityKind

K = EntityKind
_VERSION = r"v?\d+(?:\.\d+)+(?:[-.]?(?:rc|beta|alpha|post|dev|b|a)\d*)?"
_FILE_EXT = (r"py|pyi|ts|tsx|js|jsx|mjs|cjs|go|rs|java|kt|rb|php|c|h|cc|cpp|hpp|cs|swift|sh|"
             r"toml|ya?ml|json|md|sql|cypher|ini|cfg|lock|txt|html|css|scss|env|conf|proto|"
             r"tf|dockerfile|xml|gradle|csv|log|pem|service|vue|svelte")
_TLDS = r"com|io|net|org|dev|app|cloud|internal|local|svc|co|ai"



@dataclass(frozen=True)
class Hit:
    start: int
    end: int
    name: str
    kind: EntityKind
    key: str


Finder = Callable[[str], Iterator[Hit]]


# --- canonical keys ------------------------------------------------------------------------


def known_key(name: str) -> str | None:
    """The canonical key of a known library, tool or service name (aliases folded)."""
    low = " ".join(name.lower().replace("_", "-").split())
    words = low.split()
    while len(words) > 1 and words[-1] in lx.NAME_SUFFIXES:
        words.pop()
    low = " ".join(words)
    low = lx.ALIASES.get(low, low)
    return low if low in lx.KNOWN else None


def phrase_key(words: list[str]) -> str:
    """Singular, lower-case words joined by spaces: 'payments-worker' is 'payment worker'."""
    parts = [w for word in words for w in re.split(r"[-_\s]+", word.lower()) if w]
    return " ".join(tx.stem(re.sub(r"'s?$", "", w)) for w in parts)


def _version_key(version: str) -> str:
    return version.lower().lstrip("v")


# --- finders over code-shaped text ---------------------------------------------------------


_URL = re.compile(r"\bhttps?://[^\s`'\"<>)\]]+[^\s`'\"<>)\].,;:!?]")
_HOST_PORT = re.compile(r"\b((?:localhost|[a-z][a-z0-9-]*(?:\.[a-z0-9-]+)*|\d+(?:\.\d+){3}))"
                        r":(\d{2,5})\b(?!\.\d)")
_HOST = re.compile(rf"\b(?:localhost|\d{{1,3}}(?:\.\d{{1,3}}){{3}}|"
                   rf"[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*\.(?:{_TLDS}))\b(?![.\w/-]*\.\w)")
_PORT = re.compile(r"\bports?\s*(?:=|:|is|of|to|on)?\s*(\d{2,5})\b|"
                   r"\blisten(?:s|ing)? on\s*:?(\d{2,5})\b|\B:(\d{4,5})\b")
_DATE_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_DATE_TEXT = re.compile(r"\b(?:(\d{1,2})\s+([A-Z][a-z]{2,8})\.?,?\s+(\d{4})|"
                        r"([A-Z][a-z]{2,8})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4}))\b")
_ERROR = re.compile(
    r"\b(?:[A-Za-z_]\w*\.)*([A-Z]\w*(?:Error|Exception|Warning|Timeout|Failure|Fault|Killed|"
    r"Refused|Interrupt|Exit))\b|\b(E[A-Z]{4,}|SIG[A-Z]{3,}|OOM(?:Killed)?)\b")
_HTTP_STATUS = re.compile(r"\b(?:HTTP|status(?: code)?|returns?|returned|got|a|an)\s+([45]\d\d)\b"
                          r"|\b([45]\d\d)\s+(?:Bad|Not|Internal|Service|Gateway|Too|Unauthorized|"
                          r"Forbidden|Conflict|Unprocessable)", re.I)
_EXIT = re.compile(r"\bexit(?:ed)?(?: with)?(?: code| status)?\s+(\d{1,3})\b", re.I)
_FILE = re.compile(rf"(?<![\w@/.-])((?:~|\.{{1,2}})?/?(?:[\w.-]+/)*[\w.-]*\w\.(?:{_FILE_EXT})|"
                   r"(?:~|\.{1,2})?/?(?:[\w.-]+/)+[\w.-]+/?|Dockerfile|Makefile|Procfile|"
                   r"Justfile|Jenkinsfile)(?![\w/])", re.I)
_ENV = re.compile(r"\$\{?([A-Z][A-Z0-9_]{2,})\}?|\b([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b")
_FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]+)")
_ASSIGN = re.compile(r"(?<![\w.$-])([a-z][a-z0-9]*(?:[_.][a-z0-9]+)+)\s*(?:=|:)\s*(?=\S)")
_PIN = re.compile(rf"\b([a-z][\w.-]*[a-z0-9])\s*(?:==|>=|<=|~=|\^|@\^?~?)\s*({_VERSION}|\d+)\b",
                  re.I)
_NAMED_VERSION = re.compile(rf"\b([A-Za-z][\w.+-]*[A-Za-z0-9])\s+(?:version\s+)?({_VERSION}|"
                            r"\d{1,3}(?![\d.:/%]))(?![\w%])")
_BARE_VERSION = re.compile(r"\b(v\d+(?:\.\d+)+|\d+\.\d+\.\d+(?:[-.]?(?:rc|beta|alpha)\d*)?)\b")
_INSTALL = re.compile(r"\b(?:pip3? install|uv (?:add|pip install)|poetry add|npm (?:install|i)|"
                      r"yarn add|pnpm add|cargo add|go get|gem install|apt(?:-get)? install)"
                      r"(?:\s+-[-\w]+)*\s+([A-Za-z@][\w./@-]*[\w])")
_IMPORT = re.compile(r"^\s*(?:from\s+([A-Za-z_][\w]*)[\w.]*\s+import|import\s+([A-Za-z_]\w*))\b"
                     r"|\brequire\(['\"]([\w@/.-]+)['\"]\)", re.M)
_LIB_CUE = re.compile(r"\bthe\s+([A-Za-z][\w.-]*)\s+(?:library|package|crate|gem|module|plugin|"
                      r"SDK|client library)\b")
_DOTTED = re.compile(r"(?<![\w.])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(?=\(|\b)(?!\.\w)")
_SNAKE = re.compile(r"\b([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\b")
_CAMEL = re.compile(r"\b([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+|[a-z]+(?:[A-Z][a-z0-9]+)+)\b")
_CODE = re.compile(r"`([^`\s]{2,60})`")


def hosts(text: str) -> Iterator[Hit]:
    for m in _HOST.finditer(text):
        yield Hit(m.start(), m.end(), m.group(0), K.HOST, m.group(0).lower())


_LINE_REF = re.compile(rf"\.(?:{_FILE_EXT}):$", re.I)  # a file name just before ":<line>"


def urls(text: str) -> Iterator[Hit]:
    for m in _URL.finditer(text):
        yield Hit(m.start(), m.end(), m.group(0), K.URL, m.group(0).lower().rstrip("/"))


def host_ports(text: str) -> Iterator[Hit]:
    for m in _HOST_PORT.finditer(text):
        host, port = m.group(1), m.group(2)
        if _LINE_REF.search(text, 0, m.start(2)):
            continue  # worker.py:412 is a line of a file, not a port
        if host.lower() not in ("http", "https") and not host.isdigit():
            yield Hit(m.start(1), m.end(1), host, K.HOST, host.lower())
        yield Hit(m.start(2), m.end(2), port, K.PORT, port)


def ports(text: str) -> Iterator[Hit]:
    for m in _PORT.finditer(text):
        group = next(g for g in (1, 2, 3) if m.group(g))
        if group == 3 and _LINE_REF.search(text, 0, m.start(group)):
            continue
        yield Hit(m.start(group), m.end(group), m.group(group), K.PORT, m.group(group))


def dates(text: str) -> Iterator[Hit]:
    for m in _DATE_ISO.finditer(text):
        if 1 <= int(m.group(2)) <= 12 and 1 <= int(m.group(3)) <= 31:
            yield Hit(m.start(), m.end(), m.group(0), K.DATE, m.group(0))
    for m in _DATE_TEXT.finditer(text):
        day, month, year = (m.group(1), m.group(2), m.group(3)) if m.group(1) else (
            m.group(5), m.group(4), m.group(6))
        number = lx.MONTHS.get(month.lower())
        if number and 1 <= int(day) <= 31:
            yield Hit(m.start(), m.end(), m.group(0), K.DATE,
                      f"{year}-{number:02d}-{int(day):02d}")


def errors(text: str) -> Iterator[Hit]:
    for m in _ERROR.finditer(text):
        group = 1 if m.group(1) else 2
        yield Hit(m.start(), m.end(), m.group(0), K.ERROR, m.group(group).lower())
    for m in _HTTP_STATUS.finditer(text):
        code = m.group(1) or m.group(2)
        yield Hit(m.start(), m.end(), m.group(0), K.ERROR, f"http {code}")
    for m in _EXIT.finditer(text):
        yield Hit(m.start(), m.end(), m.group(0), K.ERROR, f"exit {m.group(1)}")


def files(text: str) -> Iterator[Hit]:
    for m in _FILE.finditer(text):
        name = m.group(1).rstrip(".")
        if "/" not in name and "." not in name and name[0].islower():
            continue
        if name.count("/") == 1 and name.endswith("/") is False and "." not in name and (
                len(name) < 6 or " " in name):
            continue  # "and/or", "I/O": not a path
        key = name.lower().removeprefix("./")
        yield Hit(m.start(1), m.start(1) + len(name), name, K.FILE, key.rstrip("/"))


def env_vars(text: str) -> Iterator[Hit]:
    for m in _ENV.finditer(text):
        name = m.group(1) or m.group(2)
        if name not in lx.COMMON_ACRONYMS:
            yield Hit(m.start(), m.end(), name, K.ENV_VAR, name)


def settings(text: str) -> Iterator[Hit]:
    for m in _FLAG.finditer(text):
        yield Hit(m.start(1), m.end(1), m.group(1), K.SETTING, m.group(1).lower())
    for m in _ASSIGN.finditer(text):
        name = m.group(1)
        if not re.search(rf"\.(?:{_FILE_EXT})$", name, re.I):
            yield Hit(m.start(1), m.end(1), name, K.SETTING, name.lower())


def libraries(text: str) -> Iterator[Hit]:
    """Structural cues: installs, imports, pins and 'the X library' name a library."""
    for pattern in (_INSTALL, _IMPORT, _LIB_CUE, _PIN):
        for m in pattern.finditer(text):
            group = next(g for g in range(1, (pattern.groups or 0) + 1) if m.group(g))
            name = m.group(group)
            key = known_here(name, text) or name.lower().replace("_", "-")
            if key not in tx.STOPWORDS and len(key) > 1:
                kind = lx.KNOWN.get(key, K.LIBRARY)
                yield Hit(m.start(group), m.end(group), name, kind, key)


def versions(text: str) -> Iterator[Hit]:
    """Versions, keyed with the name they belong to ('Alembic 1.13' -> 'alembic 1.13')."""
    for m in _PIN.finditer(text):
        owner = known_here(m.group(1), text) or m.group(1).lower()
        yield Hit(m.start(2), m.end(2), m.group(2), K.VERSION,
                  f"{owner} {_version_key(m.group(2))}")
    for m in _NAMED_VERSION.finditer(text):
        name, version = m.group(1), m.group(2)
        owner = known_here(name, text)
        if owner is None and name.lower() == "version":
            owner = ""
        if owner is None and "." in version and name[0].isupper() and (
                name.lower() not in tx.STOPWORDS):
            owner = name.lower()
        if owner is not None:
            key = f"{owner} {_version_key(version)}".strip()
            yield Hit(m.start(2), m.end(2), f"{name} {version}", K.VERSION, key)
    for m in _BARE_VERSION.finditer(text):
        yield Hit(m.start(), m.end(), m.group(0), K.VERSION, _version_key(m.group(0)))


def code_spans(text: str) -> Iterator[Hit]:
    """Inline code: known names stay themselves, anything else is a code identifier."""
    for m in _CODE.finditer(text):
        name = m.group(1).strip("()")
        key = known_here(name, text)
        if key:
            yield Hit(m.start(1), m.end(1), name, lx.KNOWN[key], key)
        elif re.fullmatch(r"[\w.:-]+", name) and not name.isdigit():
            yield Hit(m.start(1), m.end(1), name, K.IDENTIFIER, name.lower())


def identifiers(text: str) -> Iterator[Hit]:
    for pattern in (_DOTTED, _SNAKE, _CAMEL):
        for m in pattern.finditer(text):
            name = m.group(1)
            if known_key(name) or name.lower() in ("e.g", "i.e", "etc"):
                continue
            yield Hit(m.start(1), m.end(1), name, K.IDENTIFIER, name.lower())


def known_names(text: str) -> Iterator[Hit]:
    """Known libraries, tools and services, with 'API', 'SDK', 'client' folded away."""
    tokens = list(_NAME_TOKEN.finditer(text))
    i = 0
    while i < len(tokens):
        if tokens[i].group(0).lower().replace("_", "-") not in _FIRST_WORDS:
            i += 1
            continue
        for size in (4, 3, 2, 1):
            span = tokens[i:i + size]
            if len(span) < size or any(
                    text[a.end():b.start()] != " " for a, b in zip(span, span[1:], strict=False)):
                continue
            name = text[span[0].start():span[-1].end()]
            key = known_here(name, text)
            if key is None or (name.lower() in lx.AMBIGUOUS and name.islower()):
                continue
            yield Hit(span[0].start(), span[-1].end(), name, lx.KNOWN[key], key)
            i += size - 1
            break
        i += 1


def known_here(name: str, text: str) -> str | None:
    """`known_key` of a name said in `text`. A name that is one word of a longer known name
    ("Compose" of docker-compose) means it only in a text that names the rest of it too
    ("Docker", a docker-compose.yml): alone it as often names another product's part (Jetpack
    Compose)."""
    key = known_key(name)
    if key is None:
        return None
    parts = set(re.split(r"[-\s]+", key))
    said = set(re.split(r"[-\s]+", name.lower())) - lx.NAME_SUFFIXES
    if said < parts and not parts - said <= set(re.split(r"[\W_]+", text.lower())):
        return None
    return key


# Words a known name or alias can start with: any other token starts none.
_FIRST_WORDS = frozenset(name.split()[0] for name in (*lx.KNOWN, *lx.ALIASES))
_NAME_TOKEN = re.compile(r"(?<![\w/@-])[A-Za-z][\w+-]*(?:\.js|\.io|\.py)?(?![\w/@-])")

# The code-shaped finders in the order they claim text: (finder, claims its characters).
CODE_FINDERS: tuple[tuple[Finder, bool], ...] = (
    (urls, True), (host_ports, True), (dates, True), (errors, True), (files, True),
    (env_vars, True), (settings, True), (libraries, True), (versions, True), (ports, True),
    (code_spans, True), (hosts, True), (identifiers, True), (known_names, False),
)
