"""How a hidden value is marked, and which values are not worth hiding (shared by the detectors)."""

from __future__ import annotations

import re

_PLACEHOLDERS = frozenset(
    """
    changeme change_me changeit password passwd secret token apikey api_key none null nil
    true false yes no example sample dummy test testing redacted placeholder todo tbd foo bar
    baz xxx undefined empty required optional string str bytes int bool any secretstr
    optional[str] number object mypassword yourpassword pass pwd pw value
    """.split()
)
_TEMPLATE = re.compile(r"[x*•.#_\-]+|<[^>]*>|\{\{?[^}]*\}?\}|\$\{?[\w.\-:]*\}?|%\(?\w*\)?s?"
                       r"|%\w+%")
_PRONOUN = re.compile(r"(?:your|my|some)[-_ ]")
_FILL_IN = re.compile(r"(?:replace|change|fill|insert|put|set|update)[-_. ]?(?:me|this|it|in|here)")
# the documentation's own sample values: AWS's AKIAIOSFODNN7EXAMPLE and .../bPxRfiCYEXAMPLEKEY
_DOCUMENTED = ("EXAMPLE", "EXAMPLEKEY")
# published keys of local emulators: Azurite's devstoreaccount1 account key
_PUBLISHED = frozenset({"Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr"
                        "/KBHBeksoGMGw=="})
# public by design: Stripe's publishable keys, Mapbox's public tokens
_PUBLIC_PREFIX = ("pk_live_", "pk_test_", "pk.eyJ")
_SEGMENT = re.compile(r"[\w.\-]+")
_PATH_WORD = re.compile(r"[a-z]{3,}(?:[_\-.][a-z0-9]+)*")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
# a value that names itself: "fal-ai-api-key", "add_bos_token", "challengePassword"
_SELF_NAMED = re.compile(r"(?:[a-z]+[_\-. ])*(?:key|token|secret|passw(?:or)?d|credentials?|"
                         r"example|placeholder|dummy|fake|sample)(?:[_\-. ][a-z]+)*")


_ARN = re.compile(r"\barn:[\w\-]+:[\w\-]+:[\w\-]*:\d*:\S*\Z")


def in_arn(text: str, at: int) -> bool:
    """Whether `at` is inside an ARN (arn:aws:secretsmanager:...:secret:prod/db-password-AbC123):
    a resource's name, which may hold secret words; it names a secret, it is not one."""
    return _ARN.search(text, max(0, at - 160), at) is not None


def mark(kind: str) -> str:
    """The text left where a secret was."""
    return f"[REDACTED:{kind}]"


def splice(match: re.Match[str], group: str, kind: str, trim: int = 0) -> str:
    """The match with one group's text (minus `trim` trailing chars) replaced by the marker."""
    start, end = match.span(group)
    offset, whole = match.start(), match.group(0)
    return whole[: start - offset] + mark(kind) + whole[end - trim - offset:]


def is_placeholder(value: str) -> bool:
    """Empty, masked, templated or a well-known dummy word: nothing to hide."""
    v = value.strip().lower()
    if not v or v in _PLACEHOLDERS or "redacted" in v or v.endswith(("...", "\u2026")):
        return True  # "hf_...": an example cut short
    if value.strip().endswith(_DOCUMENTED) or value.strip() in _PUBLISHED or _FILL_IN.fullmatch(v):
        return True
    if "***" in v or ("xxxx" in v and 3 * v.count("x") >= len(v)):
        return True  # masked: "hf_***", "sk-xxxx"; not a random value with four x in it
    if _TEMPLATE.fullmatch(v) or _SELF_NAMED.fullmatch(_CAMEL.sub("_", value.strip()).lower()):
        return True
    return bool(_PRONOUN.match(v))


def is_resource_path(value: str) -> bool:
    """A name in a secret store or an API's resource path (projects/12/secrets/db-pass/versions/3):
    three or more segments, at least half of them words. It names a secret, it is not one."""
    segments = value.split("/")
    if len(segments) < 3 or not all(_SEGMENT.fullmatch(s) for s in segments):
        return False
    return 2 * sum(bool(_PATH_WORD.fullmatch(s)) for s in segments) >= len(segments)


def is_public(value: str) -> bool:
    """A key that is public by design (a publishable key, a map's public token)."""
    return value.startswith(_PUBLIC_PREFIX)
