"""Unlabelled secrets that stand out by randomness alone, as detect-secrets' high-entropy strings: a
base64/alphanumeric run of 32+ characters with upper case, lower case and digits, high Shannon
entropy for its length and no run that reads as a word.

What keeps ordinary data out: a URL or a certificate or public key block around it, an IPFS content
id, a digest algorithm in front of it (sha256:, sha512-, h1:, base64,, pin-sha256=), a public key or
password hash it belongs to (ssh-ed25519, a WireGuard peer, "the public key is", a JWK's public
members, a captcha's site key, a crypt(3) hash's `$6$salt$`), the rest of a public token
(pk.eyJ...), Jasypt's ciphertext (ENC(...)), words joined by - or _ (a test or model name), a
placeholder or a documented example, a line that calls it a fixture, sample or test vector, a test
function's first lines, base64 that decodes to text, to a known file, to a public key's layout or to
counting bytes (sample data), and an id, hash, nonce, cursor or address introducing it. Hex is never
hidden here: commit ids, digests and checksums are hex too (context.py hides hex that a secret word
names).
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections import Counter

from kg_brain.text.redact.marks import is_placeholder, is_public, mark

CANDIDATE = re.compile(r"(?<![A-Za-z0-9+/_~\-])[A-Za-z0-9+/_~\-]{32,}={0,2}"
                        r"(?![A-Za-z0-9+/_~\-=])")
_DIGIT = re.compile(r"\d")
_STANDARD_B64 = re.compile(r"[+/]")
_URLSAFE_B64 = re.compile(r"[\-_]")
_SEPARATOR = re.compile(r"[_\-.]")
_WORD = re.compile(r"[a-z]{3,}|[A-Z][a-z]{2,}|[A-Z]{3,}")
_PIECE = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s\"'<>`]+")
# pin-sha256="...", sha256//..., a data URL's ;base64, (Laravel's `base64:` scheme prefixes a key)
_DIGEST_BEFORE = re.compile(r"(?i)(?:\b(?:sha\d*|md5|h1|blake2b?|sha3-\d+)(?:[:,=-][\"']?|//)|"
                            r"\bbase64,)\Z")
_DIGEST_PREFIX = re.compile(r"(?i)(?:sha\d*|md5|blake2b?)-")
_EXPLAINED_BEFORE = re.compile(  # "request id: ...", "nonce=...", "ssh-ed25519 ...", "$2b$12$..."
    # also as a name's last word: next_cursor, contentHash, page_ids
    r"(?i)(?:(?:\b|_|(?-i:(?<=[a-z])(?=[A-Z])))(?:[ug]?ids?|nonce|salt|iv|etag|digest|hash|"
    r"checksum|fingerprint|integrity|cursor|trace|span|request|state|ssh-\w+|ecdsa-sha2-\w+|peer|"
    r"site[ _\-]?key)(?:[_\-]?\d{1,2})?\b|"  # x-amz-id-2, trace_id2
    r"(?:\b|_)(?:address|wallet)\b|"
    # a public key, also as a name's last word (MINISIGN_PUBKEY); a JWK's public members
    r"(?:\b|_)(?:public[ _\-]?key|pubkey)(?:\s+(?:is|was))?\b|[\"'][nexy][\"']|"
    # inside a crypt(3) hash: $6$salt$..., $2b$12$...; Jasypt's ciphertext: ENC(...)
    r"(?-i:[a-z]Id)|\$|(?-i:\bENC)\()"
    r"[\s\"'`:=(]*\Z")
_WORD_BEFORE = re.compile(r"[\w.\-]+\Z")
_CRYPT_HASH = re.compile(r"\$\w{1,10}\$[^\s\"']*\Z")  # inside $6$salt$hash, $2b$12$...
# the line calls it sample data: a test fixture, a sample, a test vector
_SAMPLE_LINE = re.compile(r"(?i)(?<![a-z])(?:fixtures?|samples?|dummy|fake|examples?|"
                          r"test[ _\-]?vectors?)(?![a-z])")
# the lines above are a test's: def test_..., it("...", @Test, func TestX
_TEST_ABOVE = re.compile(r"(?m)^[ \t]*(?:(?:async[ \t]+)?def[ \t]+test_?\w*\(|(?:it|test)\([\"'`]|"
                         r"@Test\b|func[ \t]+Test\w*\()[^\n]*\n(?:[^\n]*\n){0,2}[^\n]*\Z")
# certificates and public keys: public by design, and as random as any key
_PUBLIC_BLOCK = re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*(?:PUBLIC KEY(?: BLOCK)?|CERTIFICATE"
                           r"(?: REQUEST)?)-----.*?(?:-----END [A-Z0-9 ]+-----|\Z)", re.S)
_CONTENT_ID = re.compile(r"Qm[1-9A-HJ-NP-Za-km-z]{44}")  # an IPFS CIDv0: a digest
_FILE_MAGIC = (b"\x89PNG", b"GIF8", b"\xff\xd8\xff", b"PK\x03\x04", b"%PDF", b"\x1f\x8b", b"RIFF")
TEXT_BYTES = frozenset(range(32, 127)) | {9, 10, 13}


def hide_random(text: str, found: list[str]) -> str:
    """Every run random enough to be key material, and not explained as ordinary data."""
    urls = url_spans(text)
    if "-----BEGIN" in text:
        urls += [m.span() for m in _PUBLIC_BLOCK.finditer(text)]

    def replace(match: re.Match[str]) -> str:
        value = match.group(0)
        if not _random_enough(value.rstrip("=")) or _explained(value, text, match.start(), urls):
            return value
        found.append("high_entropy_secret")
        return mark("high_entropy_secret")

    return CANDIDATE.sub(replace, text)


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


def word_length(value: str) -> float:
    """Average length of the words and numbers in a value: ~4+ for names, under 2 for noise."""
    pieces = _PIECE.findall(value)
    return sum(map(len, pieces)) / len(pieces) if pieces else 0.0


def joined_words(value: str) -> bool:
    """Words joined by -, _ or . (test_shape_NCd1d2d3_mean_weight, enc_alg.CEK_SIZE): a name.
    Random base64url has a separator every 32 characters, and the pieces are never words."""
    segments = _SEPARATOR.split(value)
    words = sum(1 for segment in segments if _WORD.fullmatch(segment))
    return words >= 2 and 2 * words >= len(segments)


def url_spans(text: str) -> list[tuple[int, int]]:
    """Where the URLs are: their paths and queries are addresses, checked by the formats only."""
    return [m.span() for m in _URL.finditer(text)] if "://" in text else []


def inside(spans: list[tuple[int, int]], at: int) -> bool:
    return any(lo <= at < hi for lo, hi in spans)


def _random_enough(value: str) -> bool:
    """Upper, lower and digits, high entropy for its length, no run that reads as a word."""
    if len(value) > 512 or value.lower() == value or value.upper() == value:
        return False
    if _DIGIT.search(value) is None or joined_words(value):
        return False
    if _STANDARD_B64.search(value) and _URLSAFE_B64.search(value):
        return False  # "/" with "-": a path or a model name; base64 keeps to one alphabet
    return entropy(value) >= min(4.2, 0.82 * math.log2(len(value))) and word_length(value) < 3.0


def _explained(value: str, text: str, start: int, urls: list[tuple[int, int]]) -> bool:
    """A reason the value is ordinary data: in a URL, a digest, a public key, a password hash,
    encoded sample data, or introduced as an id, hash, nonce or cursor."""
    if inside(urls, start) or _DIGEST_PREFIX.match(value) or _CONTENT_ID.fullmatch(value):
        return True
    if is_public(value) or is_placeholder(value):
        return True
    before = text[max(0, start - 40):start]
    if _DIGEST_BEFORE.search(before) or _EXPLAINED_BEFORE.search(before):
        return True
    # its line, within 200 characters either side (a long line is not read whole per value)
    near, far = max(0, start - 200), min(len(text), start + len(value) + 200)
    line_start = text.rfind("\n", near, start) + 1 or near
    end = text.find("\n", start, far)
    word = _WORD_BEFORE.search(text, line_start, start)
    if is_public(text[word.start() if word else start:start] + value):
        return True  # the rest of a public token: pk.eyJ...
    if _CRYPT_HASH.search(text, line_start, start):
        return True
    line = text[line_start:end if end >= 0 else far]
    if _SAMPLE_LINE.search(line) or _TEST_ABOVE.search(text, max(0, start - 160), start):
        return True
    return _decodes_to_data(value)


def _decodes_to_data(value: str) -> bool:
    """Base64 of text or of a known file format: sample data, not key material."""
    padded = value + "=" * (-len(value) % 4)
    try:
        raw = base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True)
    except (binascii.Error, ValueError):
        return False
    if raw.startswith(_FILE_MAGIC) or _public_key_bytes(raw) or _patterned(raw):
        return True
    return len(raw) >= 12 and sum(b in TEXT_BYTES for b in raw) >= 0.75 * len(raw)


def _public_key_bytes(raw: bytes) -> bool:
    """A minisign public key ("Ed", key id, key: 42 bytes) or an uncompressed elliptic-curve
    point (0x04, x, y: 65 bytes, e.g. a Web Push VAPID key): public keys by their layout."""
    return (len(raw) == 42 and raw.startswith(b"Ed")) or (len(raw) == 65 and raw[0] == 4)


def _patterned(raw: bytes) -> bool:
    """Bytes counting up or down in steps (bytes(range(48)), a test's input): random bytes
    repeat a step between neighbours about once in 256."""
    steps = [(raw[i + 1] - raw[i]) % 256 for i in range(len(raw) - 1)]
    repeated = sum(1 for i in range(len(steps) - 1) if steps[i] == steps[i + 1])
    return len(raw) >= 8 and repeated >= len(steps) // 2
