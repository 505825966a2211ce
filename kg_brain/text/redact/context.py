"""Unlabelled secrets named by a nearby word, as gitleaks' generic rule finds them: a secret
word (password, secret, token, creds, api key, ...) or a service whose keys carry no prefix
(Datadog, Twilio, Heroku, ...), then only connecting words ("is", "for prod", "new one is",
":", "=") before the value. The value must look generated: hex of 20+ characters, a UUID, or
8+ characters mixing classes; not a word, a path, a reference, an address, a slug or a name.
`hide_continued` hides the rest of a value wrapped onto the next line of a log or a shell.
"""

from __future__ import annotations

import os
import re

from kg_brain.text.redact.entropy import entropy, inside, joined_words, url_spans, word_length
from kg_brain.text.redact.marks import in_arn, is_placeholder, is_public, mark

_WORD_KINDS = (("passw", "password"), ("pwd", "password"), ("passphrase", "password"),
               ("token", "token"), ("key", "api_key"), ("secret", "secret"), ("cred", "secret"))
_SERVICES = ("datadog", "twilio", "heroku", "azure", "aws", "mailgun", "cloudflare", "sentry",
             "okta", "algolia", "newrelic", "new relic", "pagerduty", "discord", "telegram")
_STEMS = ("pass", "pwd", "secret", "token", "cred", "key", *_SERVICES)  # one is in every match
_FILLER = ("is|was|are|now|set|to|as|the|a|an|our|my|new|old|one|current|prod|production|"
           "staging|dev|live|test|sandbox|value|key|api|app|auth|access|bot|account|admin|user|"
           "root|private|secret|token|here|with|replaced|rotated|changed|updated|today|it's|it")
# token_hash, secret_name, key_file, api_key_url: about a secret, not one
_NOT_THE_SECRET = ("hash|hashed|digest|ids?|name|file|path|url|uri|length|len|size|type|policy|"
                   "count|ttl|expiry|expires|endpoint|header|prefix|format|version|rotation|"
                   "manager|store|ref|arn|kid|fingerprint")
_VALUE = r"[^\s\"'`<>(){}\[\],;:]"
_CONTEXT = re.compile(
    # a word of its own (DD_API_KEY and ddAppKey count, monkey does not)
    r"(?i)(?=[acdehlmnopstv])(?-i:(?<![A-Za-z0-9])|(?<=[a-z])(?=[A-Z]))"
    # a secret word, with suffixes that keep it a name for the secret (_PROD, -v2) and not for
    # something about it (_hash, _ids); or a service's bare name (not AWS_REGION)
    r"(?P<word>(?:passw(?:or)?ds?|pwd|passphrase|secrets?|tokens?|creds|credentials?|"
    r"api[ _\-]?keys?|(?:access|app|application|account|storage|signing|master|encryption|"
    r"decryption|validation|private|license|deploy|sandbox|live|prod|production|staging)"
    r"[ _\-]?keys?)"
    rf"(?:[_\-.](?!(?:{_NOT_THE_SECRET})(?![a-z0-9]))[a-z0-9]+){{0,2}}|{'|'.join(_SERVICES)})"
    r"(?![a-z0-9])"
    # then separators, arrows, "for <name>:" and connecting words on the same line, a bounded
    # number of them
    # (a flag may stand between: DEPLOY_KEY --body '...'; a here-string: NAME <<< '...')
    # (a JSON string's escaped quotes: \\\")
    r"(?P<gap>(?:[ \t\"'`:=<>(,|\\]|-+>|(?<=[ \t])-+(?=[ \t])|(?<=[ \t])--?[a-z][a-z\-]*(?=[ \t=])"
    r"|\b(?:for|of|on|in)(?:[ \t]+[\w.\-]+){1,3}[ \t]*(?:[:=]|is\b)"
    rf"|\b(?:{_FILLER})\b){{1,12}}+)"
    # then the value, not a call (io.StringIO(...))
    rf"(?P<value>{_VALUE}{{1,200}}+)(?!{_VALUE}|\()")
_NOT_A_VALUE = ("$", "@", "/", "~", ".", "ssh-", "ecdsa-", "sk-ssh-", "sk-ecdsa-")
_AWS = re.compile(r"(?i)\baws\b")
_EMAIL = re.compile(r"[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)+")
_HEX = re.compile(r"[0-9a-f]+|[0-9A-F]+")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_DIGIT = re.compile(r"\d")
_DIGITS = re.compile(r"\d+")
_SYMBOL = re.compile(r"[^A-Za-z0-9]")
_MARKED_END = re.compile(r"\[REDACTED:(\w+)\]\\?[ \t]*\n")
_MARK_KIND = re.compile(r"\[REDACTED:(\w+)\]")
_CONTINUATION = re.compile(r"[A-Za-z0-9+/_~.\-]{8,}={0,2}(?=[\"'`,;)}\]\s\\]|$)")


def hide_near_words(text: str, found: list[str]) -> str:
    """Each word's value hidden when it looks generated; when it does not, the search goes on
    from the word's end, so a nearer word ("creds for Twilio: ...") gets its own chance."""
    lowered = text.lower()
    if not any(stem in lowered for stem in _STEMS):
        return text
    pieces: list[str] = []
    done = pos = 0
    urls = url_spans(text)
    while match := _CONTEXT.search(text, pos):
        value = match.group("value").rstrip(".:!?")
        if inside(urls, match.start()) or in_arn(text, match.start()) or not _generated(value):
            pos = match.end("word")
            continue
        kind = _kind_of(text[match.start():match.start("value")], value, text, match.start())
        found.append(kind)
        pieces += [text[done:match.start("value")], mark(kind)]
        done = pos = match.start("value") + len(value)
    return "".join(pieces) + text[done:]


def hide_continued(text: str, found: list[str]) -> str:
    """The rest of a hidden value that a log or a shell wrapped onto the next line: a line ending
    in a marker (or a marker and a shell's `\\`), then the next line, after the prefix the two
    lines share (`[pod/api-7d9f] `, `+ `), opening with a generated run."""
    if "[REDACTED:" not in text:
        return text
    pieces: list[str] = []
    done = 0
    for end in _MARKED_END.finditer(text):
        line_start = text.rfind("\n", 0, end.start()) + 1
        following = text[end.end():text.find("\n", end.end()) % (len(text) + 1)]
        shared = os.path.commonprefix([text[line_start:end.start()], following])
        shared = shared[:max(shared.rfind(" "), shared.rfind("\t")) + 1]
        rest = _CONTINUATION.match(following, len(shared))
        if rest is None or not _generated(rest.group(0)):
            continue
        start = end.end() + rest.start()
        kind = _MARK_KIND.search(text, end.start(), end.end())
        found.append(kind.group(1) if kind else "secret")
        pieces += [text[done:start], mark(kind.group(1) if kind else "secret")]
        done = start + len(rest.group(0))
    return "".join(pieces) + text[done:]


def _kind_of(label: str, value: str, text: str, at: int) -> str:
    """The kind the nearest secret word names ("Twilio auth token": token); a 40-character value
    near "AWS" is an AWS secret key; a bare service name means an API key."""
    if len(value) == 40 and _AWS.search(text, max(0, at - 80), at + len(label)):
        return "aws_secret_key"
    lowered = label.lower()
    position, kind = max((lowered.rfind(stem), kind) for stem, kind in _WORD_KINDS)
    return kind if position >= 0 else "api_key"


def _generated(value: str) -> bool:
    """A value a machine made (or a password someone did), not a word, path, slug, address,
    date, expression or reference."""
    if len(value) < 8 or value.startswith(_NOT_A_VALUE) or "://" in value or "REDACTED" in value:
        return False
    if "=" in value.rstrip("=") or is_placeholder(value) or is_public(value):
        return False
    if _EMAIL.fullmatch(value):
        return False  # mean=0.0 is an expression: base64 pads only at the end
    bare = value.rstrip("=")
    has_digit = _DIGIT.search(bare) is not None
    if _HEX.fullmatch(bare) or _UUID.fullmatch(bare):
        return len(bare) >= 20 and has_digit and not bare.isdigit() and entropy(bare) >= 3.0
    has_symbol = _SYMBOL.search(value) is not None
    mixed_case = value.lower() != value and value.upper() != value
    if not (has_digit or has_symbol):  # letters only: long, mixed case and no words in it
        return mixed_case and len(value) >= 20 and word_length(value) < 3.0
    if has_digit and not (has_symbol or mixed_case) and len(value) >= 20:
        # one case, letters and digits (NuGet's oy2..., a session id): generated when the digits
        # are scattered through it, not a name with a number at its end (build20241130)
        return len(_DIGITS.findall(value)) >= 3 and entropy(value) >= 3.5 and (
            sum(map(str.isalpha, value)) >= len(value) // 4)
    if has_digit + has_symbol + mixed_case < 2 or not (mixed_case or len(value) >= 10):
        return False  # HTTP/1.1, us-west-1, release-2024: one case, short
    letters = sum(map(str.isalpha, value))
    return letters >= max(3, len(value) // 4) and not joined_words(value) and (
        word_length(value) < 3.5)
