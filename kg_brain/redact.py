"""Secrets never reach the graph: credentials in a note are replaced before it is written.

Token formats with a recognisable prefix (AKIA..., ghp_..., sk-..., hf_..., JWTs, PEM blocks)
are matched anywhere. Generic `password=`/`token=`/`api_key=` assignments only count when the
value is a literal: variable references, calls, placeholders and type annotations are code, not
secrets, and ordinary notes must come back byte-identical.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_Replacer = Callable[[re.Match[str]], str]

# (kind, pattern); the value to hide is the group named "secret", or the whole match.
_TOKEN_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("private_key", re.compile(
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----.*?-----END (?:[A-Z0-9]+ )*"
        r"PRIVATE KEY(?: BLOCK)?-----", re.S)),
    ("password", re.compile(
        r"\b[a-zA-Z][a-zA-Z0-9+.\-]{0,30}://[^\s:/@'\"]*:(?P<secret>[^\s@/'\"]+)@[\w.\-\[\]]+")),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}")),
    ("aws_access_key", re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[A-Z0-9]{16}\b")),
    ("aws_secret_key", re.compile(
        r"(?i)\baws_?secret(?:_access)?_?key[\"']?\s*[:=]\s*[\"']?(?P<secret>[A-Za-z0-9/+=]{40})"
        r"(?![A-Za-z0-9/+=])")),
    ("github_token", re.compile(
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b")),
    ("gitlab_token", re.compile(r"\bglpat-[A-Za-z0-9_\-]{20,}")),
    ("slack_token", re.compile(r"\bxox[baprs]-[A-Za-z0-9\-]{10,}")),
    ("anthropic_key", re.compile(r"\bsk-ant-[A-Za-z0-9_\-]{20,}")),
    ("openai_key", re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?(?=[A-Za-z0-9_\-]{0,200}\d)"
                              r"(?=[A-Za-z0-9_\-]{0,200}[A-Za-z])[A-Za-z0-9_\-]{20,}")),
    ("stripe_key", re.compile(r"\b[rsp]k_(?:live|test)_[A-Za-z0-9]{16,}")),
    ("huggingface_token", re.compile(r"\bhf_(?=[A-Za-z0-9]{0,40}[A-Z])[A-Za-z0-9]{30,40}\b")),
    ("google_api_key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-])")),
    ("npm_token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b")),
    ("bearer_token", re.compile(
        r"(?i)\bauthorization[\"']?\s*[:=]\s*[\"']?bearer\s+(?P<secret>[A-Za-z0-9._~+/\-]{8,}=*)")),
    ("bearer_token", re.compile(
        r"\bBearer\s+(?P<secret>(?=[A-Za-z0-9._~+/\-]{0,200}\d)[A-Za-z0-9._~+/\-]{20,}=*)")),
)

_KEY_WORDS = {
    "password": "password", "passwd": "password", "pwd": "password", "passphrase": "password",
    "secret": "secret", "secret_key": "secret", "token": "token",
    "apikey": "api_key", "api_key": "api_key",
    "api-key": "api_key", "access_key": "api_key", "access-key": "api_key",
    "private_key": "private_key", "credentials": "secret", "credential": "secret",
}
_ASSIGNMENT = re.compile(
    r"(?<![\w.\-])(?P<key>[\w.\-]{0,40}?(?i:passwd|password|passphrase|pwd|secret(?:[_\-]?key)?|token|api[_\-]?key|"
    r"access[_\-]key|private_key|credentials?))(?P<kq>[\"']?)"
    r"(?P<sep>\s*(?<![=!<>])[:=](?!=)\s*)"
    r"(?:(?P<q>[\"'])(?P<qval>[^\"'\n]*)(?P=q)|(?P<val>[^\s\"'`,;&)\]}]+))"
)
_PLACEHOLDERS = frozenset(
    """
    changeme change_me changeit password passwd secret token apikey api_key none null nil
    true false yes no example sample dummy test testing redacted placeholder todo tbd foo bar
    baz xxx undefined empty required optional string str bytes int bool any secretstr
    optional[str] number object mypassword yourpassword pass
    """.split()
)
_REFERENCE_START = ("$", "%", "{", "<", "[", "@", "*", "os.", "env", "process.env", "getenv",
                    "settings.", "config.", "self.", "args.", "request.", "!")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


def redact(text: str) -> tuple[str, list[str]]:
    """The text with every secret replaced by [REDACTED:<kind>], and the kinds found."""
    found: list[str] = []
    for kind, pattern in _TOKEN_PATTERNS:
        text = pattern.sub(_hide(kind, found), text)
    text = _ASSIGNMENT.sub(lambda m: _hide_assignment(m, found), text)
    return text, list(dict.fromkeys(found))


def _hide(kind: str, found: list[str]) -> _Replacer:
    """Replace the whole match, or only its "secret" group when the pattern has one."""

    def replace(match: re.Match[str]) -> str:
        has_group = "secret" in match.re.groupindex and match.group("secret") is not None
        if has_group and _is_placeholder(match.group("secret")):
            return match.group(0)
        found.append(kind)
        if not has_group:
            return f"[REDACTED:{kind}]"
        return _splice(match, "secret", kind)

    return replace


def _splice(match: re.Match[str], group: str, kind: str, trim: int = 0) -> str:
    """The match with one group's text (minus `trim` trailing chars) replaced by the marker."""
    start, end = match.span(group)
    offset, whole = match.start(), match.group(0)
    return whole[: start - offset] + f"[REDACTED:{kind}]" + whole[end - trim - offset:]


def _hide_assignment(match: re.Match[str], found: list[str]) -> str:
    key = match.group("key")
    quoted = match.group("q") is not None
    value = match.group("qval") if quoted else match.group("val")
    if not _is_literal_secret(key, match.group("sep"), value, quoted):
        return match.group(0)
    kind = _kind_of(key)
    found.append(kind)
    if quoted:
        return _splice(match, "qval", kind)
    return _splice(match, "val", kind, trim=len(value) - len(value.rstrip(".")))


def _kind_of(key: str) -> str:
    lowered = key.lower()
    best = "secret"
    best_pos = -1
    for word, kind in _KEY_WORDS.items():
        pos = lowered.rfind(word)
        if pos > best_pos:
            best, best_pos = kind, pos
    return best


def _is_placeholder(value: str) -> bool:
    """Empty, masked, templated or a well-known dummy word: nothing to hide."""
    v = value.strip().lower()
    if not v or v in _PLACEHOLDERS or "redacted" in v:
        return True
    if re.fullmatch(r"[x*•.#_\-]+|<[^>]*>|\{\{?[^}]*\}?\}|\$\{?[\w.\-:]*\}?|%\(?\w*\)?s?", v):
        return True
    return bool(re.match(r"(?:your|my|some)[-_ ]", v))


def _is_literal_secret(key: str, sep: str, value: str, quoted: bool) -> bool:
    """Whether an assigned value is a real literal rather than code, a type or a template."""
    value = value.rstrip(".") if not quoted else value
    if _is_placeholder(value) or value.lower().startswith(_REFERENCE_START):
        return False
    if quoted:
        return len(value) >= 4
    if "(" in value or "[" in value:
        return False  # a call or a subscript: get_token(), os.environ["X"]
    env_style = sep == "=" or sep.strip() == ":"  # KEY=value (.env, shell) or KEY: value (YAML)
    if key.lstrip("-").isupper() and env_style and len(value) >= 4:
        return True  # in .env files, shells and compose files the value is always a literal
    if _IDENTIFIER.fullmatch(value):
        # pw, db_password, settings.token, CamelCase: variables. hunter2, ya29.a0Af6...: literals.
        if _looks_random(value):
            return True
        has_digit = any(c.isdigit() for c in value)
        has_alpha = any(c.isalpha() for c in value)
        return has_digit and has_alpha and "_" not in value and "." not in value and len(value) >= 6
    return len(value) >= 6 and not value.isdigit()


def _looks_random(value: str) -> bool:
    """Many digits among mixed-case letters: generated, not a name someone typed."""
    digits = sum(c.isdigit() for c in value)
    mixed_case = any(c.isupper() for c in value) and any(c.islower() for c in value)
    return len(value) >= 12 and digits >= 2 and (mixed_case or digits >= 4)
