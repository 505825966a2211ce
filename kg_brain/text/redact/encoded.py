"""Secrets in base64: a run that decodes to text holding a secret (a JSON or YAML document
with a password or a key in it, put through the whole redactor) or to a `user:password` pair (a
basic-auth value written outside an Authorization header). Base64 of ordinary text, of a file
or of key material stays for the entropy rule, which keeps text and files as sample data.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable

from kg_brain.text.redact.entropy import CANDIDATE, TEXT_BYTES
from kg_brain.text.redact.marks import mark
from kg_brain.text.redact.referred import password_like

Redactor = Callable[[str], tuple[str, list[str]]]

_LOGIN_PAIR = re.compile(r"[\w.@+\-]{2,64}:(\S{6,128})")
_KIND = "encoded_secret"


def hide_encoded(text: str, found: list[str], redact: Redactor) -> str:
    """Every base64 run (32 characters or more, any length) whose decoded text holds a
    secret, replaced whole."""

    def replace(match: re.Match[str]) -> str:
        if not _holds_secret(match.group(0), redact):
            return match.group(0)
        found.append(_KIND)
        return mark(_KIND)

    return CANDIDATE.sub(replace, text)


def _holds_secret(value: str, redact: Redactor) -> bool:
    decoded = _decoded_text(value.rstrip("="))
    if decoded is None:
        return False
    pair = _LOGIN_PAIR.fullmatch(decoded.strip())
    if pair is not None and password_like(pair.group(1)):
        return True
    return bool(redact(decoded)[1])


def _decoded_text(value: str) -> str | None:
    """The text a base64 value encodes, or None when it is not base64 of text."""
    padded = value + "=" * (-len(value) % 4)
    try:
        raw = base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True)
    except (binascii.Error, ValueError):
        return None
    if len(raw) < 8 or sum(b in TEXT_BYTES for b in raw) < 0.95 * len(raw):
        return None
    return raw.decode("ascii", errors="replace")
