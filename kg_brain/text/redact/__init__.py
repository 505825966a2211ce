"""Secrets never reach the graph: credentials in a note are replaced before it is written.

Detectors run from the most specific to the least, each leaving `[REDACTED:<kind>]` where a
secret was, which later ones never match: recognisable formats (vendor prefixes, PEM blocks,
URL passwords), Kubernetes Secret data, labelled assignments, passwords behind a flag, in a
login pair or after a password word, values named by a nearby word, base64 whose decoded text
holds a secret, then values random enough on their own, and last the rest of a hidden value
that a log or a shell wrapped onto the next line. Everything else in the note comes back
byte-identical, and so does a SealedSecret's ciphertext, which is made to be committed.
"""

from __future__ import annotations

from kg_brain.text.redact.assignments import (
    hide_assignments,
    hide_kubernetes_secrets,
    sealed_values,
)
from kg_brain.text.redact.context import hide_continued, hide_near_words
from kg_brain.text.redact.encoded import hide_encoded
from kg_brain.text.redact.entropy import hide_random
from kg_brain.text.redact.formats import hide_formats
from kg_brain.text.redact.referred import hide_referred

__all__ = ["redact"]


def redact(text: str) -> tuple[str, list[str]]:
    """The text with every secret replaced by [REDACTED:<kind>], and the kinds found."""
    found: list[str] = []
    kept = sealed_values(text)  # ciphertext: the text around it is read, it is not
    pieces, done = [], 0
    for start, end in kept:
        pieces += [_redact(text[done:start], found), text[start:end]]
        done = end
    pieces.append(_redact(text[done:], found))
    return "".join(pieces), list(dict.fromkeys(found))


def _redact(text: str, found: list[str]) -> str:
    for detector in (hide_formats, hide_kubernetes_secrets, hide_assignments, hide_referred,
                     hide_near_words):
        text = detector(text, found)
    text = hide_encoded(text, found, redact)  # base64 of text: the decoded text, redacted
    return hide_continued(hide_random(text, found), found)
