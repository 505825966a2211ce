"""Failure signatures: one stable string per kind of error, whatever machine or run produced it.

The same exception raised from another checkout, line, process or temp directory must give the
same signature, so that `preflight_check` finds the earlier mistake. What varies between runs
(paths, line numbers, addresses, timestamps, ids, quoted values) is dropped or replaced by a
placeholder; what identifies the error (exception class, message words, file and function
names) stays.
"""

from __future__ import annotations

import re

MAX_CHARS = 200

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_PY_FRAME = re.compile(r'File "(?P<path>[^"]+)", line \d+(?:, in (?P<func>[^\s]+))?')
_JS_FRAME = re.compile(
    r"\bat (?:(?P<func>[\w$.<>\[\] ]+?) \()?(?P<path>[^\s()]+?):\d+(?::\d+)?\)?$"
)
_EXCEPTION_LINE = re.compile(
    r"^\s*(?:[\w.]+\.)?(?P<name>[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Warning|Fault|"
    r"Failure|Timeout|Refused|NotFound|Invalid\w*))\b(?::|$)"
)
_ERROR_WORDS = re.compile(
    r"\b(?:error|exception|fail(?:ed|ure|s)?|fatal|panic(?:ked)?|denied|refused|cannot|"
    r"can't|unable|not found|no such|timed? ?out|traceback|abort(?:ed)?|segmentation)\b",
    re.I,
)
_SUBSTITUTIONS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b[a-z][a-z0-9+.\-]{0,30}://\S+", re.I), "<url>"),
    (re.compile(
        r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?"
    ), " "),
    (re.compile(r"\b\d{4}[-/]\d{2}[-/]\d{2}\b|\b\d{1,2}/\d{1,2}/\d{2,4}\b"), " "),
    (re.compile(r"\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b"), " "),
    (re.compile(r"\b[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}\b", re.I), "<uuid>"),
    (re.compile(r"\b0x[0-9a-f]+\b", re.I), "<addr>"),
    # Windows and POSIX paths keep only their last component.
    (re.compile(r"(?<![\w.\-@+~$:])(?:[A-Za-z]:)?(?:[\w.\-@+~$]*[\\/])+(?P<base>[\w.\-@+$]+)"),
     r"\g<base>"),
    (re.compile(r"\b(?:tmp|temp|pytest-of-|pytest-)[\w\-]*\d[\w\-]*", re.I), "<tmp>"),
    (re.compile(r"(\.\w{1,6}):\d+(?::\d+)?\b"), r"\1"),
    (re.compile(r"\(\d+,\s*\d+\)"), ""),
    (re.compile(r"\s*\[as [\w$]+\]"), ""),
)
_QUOTED = re.compile(r"(['\"`])([^'\"`\n]{0,200})\1")
_HEX_ID = re.compile(r"(?<![0-9A-Za-z])(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b", re.I)
_MIXED_ID = re.compile(
    r"(?<![A-Za-z0-9_\-])(?=[A-Za-z0-9_\-]*\d)(?=[A-Za-z0-9_\-]*[A-Za-z])[A-Za-z0-9_\-]{16,}\b"
)
_LONG_NUMBER = re.compile(r"\b\d{5,}\b|\b\d+\.\d+\s*(?:ms|s|sec|seconds|m|min)\b")
_LOCATION_NUMBER = re.compile(r"\b(line|col|column|row|offset|pid|port)\s*[:=]?\s*\d+\b", re.I)
_PLACEHOLDER_RUN = re.compile(r"(<\w+>)(?:[\s,;:]*\1)+")


def normalize_failure(text: str) -> str:
    """A lower-case, bounded signature of an error message or stack trace."""
    text = _ANSI.sub("", text)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    parts = _exception_lines(lines) or _error_lines(lines) or lines[:3]
    frames = _frames(lines)
    signature = " | ".join(dict.fromkeys(_normalise(p) for p in parts + frames if p))
    return _bound(signature)


def _exception_lines(lines: list[str]) -> list[str]:
    """Exception lines, the final (raised) one first; chained causes follow."""
    found = [line for line in lines if _EXCEPTION_LINE.match(line)]
    return list(reversed(found))[:3]


def _error_lines(lines: list[str]) -> list[str]:
    return [line for line in lines if _ERROR_WORDS.search(line)][:3]


def _frames(lines: list[str]) -> list[str]:
    """The innermost two stack frames as 'file.py in func' (no directories, no lines)."""
    python: list[str] = []
    other: list[str] = []
    for line in lines:
        match = _PY_FRAME.search(line)
        target = python
        if match is None:
            match, target = _JS_FRAME.search(line), other
        if match:
            base = re.split(r"[\\/]", match.group("path"))[-1]
            func = match.group("func")
            target.append(f"{base} in {func.strip()}" if func else base)
    # Python prints the innermost frame last; JavaScript, Java and Go print it first.
    return python[-2:][::-1] + other[:2]


def _normalise(part: str) -> str:
    for pattern, replacement in _SUBSTITUTIONS:
        part = pattern.sub(replacement, part)
    part = _LOCATION_NUMBER.sub(r"\1", part)
    part = _QUOTED.sub(_quoted_value, part)
    part = _HEX_ID.sub("<hex>", part)
    part = _MIXED_ID.sub("<id>", part)
    part = _LONG_NUMBER.sub("<n>", part)
    part = _PLACEHOLDER_RUN.sub(r"\1", part)
    return " ".join(part.lower().split()).strip(" :,;-")


def _quoted_value(match: re.Match[str]) -> str:
    """Keep quoted names ('numpy', 'string'); replace quoted data (ids, paths, long values)."""
    quote, value = match.group(1), match.group(2)
    if re.fullmatch(r"[A-Za-z_][A-Za-z_.\-]{0,39}", value):
        return f"{quote}{value}{quote}"
    return f"{quote}<val>{quote}"


def _bound(signature: str) -> str:
    if len(signature) <= MAX_CHARS:
        return signature
    cut = signature[:MAX_CHARS]
    return cut[: cut.rfind(" ")] if " " in cut else cut
