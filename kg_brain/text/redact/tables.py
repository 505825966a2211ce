"""Secrets in rows: a column named for a secret and the values under it, whatever the table's
syntax: SQL's `INSERT INTO t (..., password, ...) VALUES (...)`, a dump's `COPY t (...) FROM
stdin;` rows (tab-separated), and a CSV file's header and rows. A column about a secret
(`password_hash`, `token_expires`) is not one, and a value counts only when it reads as a
password or looks generated: never a number, a date, an e-mail address or a crypt(3) hash.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from kg_brain.text.redact.marks import mark
from kg_brain.text.redact.referred import password_like

# a column naming a secret as its last word; not one naming something about it
_SECRET_COLUMN = re.compile(r"(?i)(?:^|[_\-.]|(?<=[a-z])(?=[A-Z]))(?:passw(?:or)?d|passwd|pwd|pass|"
                            r"passphrase|secret|token|api[_\-]?key|access[_\-]?key|private[_\-]?key|"
                            r"credentials?)$")
_INSERT = re.compile(r"(?is)\binsert\s+into\s+[`\"\[]?[\w.]+[`\"\]]?\s*\((?P<columns>[^()]*)\)\s*"
                     r"values\s*(?P<rows>(?:\((?:[^()'\"]|'(?:[^'\\]|\\.|'')*'|\"[^\"]*\")*\)"
                     r"\s*,?\s*)+)")
_ROW = re.compile(r"\(((?:[^()'\"]|'(?:[^'\\]|\\.|'')*'|\"[^\"]*\")*)\)")
_CELL = re.compile(r"\s*('(?:[^'\\]|\\.|'')*'|\"[^\"]*\"|[^,]*?)\s*(?:,|$)")
_COPY = re.compile(r"(?im)^COPY\s+[\w.\"]+\s*\((?P<columns>[^()]*)\)\s+FROM\s+stdin;[ \t]*\n"
                   r"(?P<rows>(?:(?!\\\.)[^\n]*\t[^\n]*(?:\n|\Z))+)")
# a CSV header: names joined by bare commas (an import list has spaces after them)
_CSV_HEADER = re.compile(r"(?m)^(?P<columns>[\w\-.]+(?:,[\w\-.]+){1,30})[ \t]*\n"
                         r"(?P<rows>(?:[^\n,]*(?:,[^\n,]*){1,30}(?:\n|\Z))+)")
_NOT_A_SECRET = re.compile(r"\$\w{1,10}\$\S*|[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)+|\d{4}-\d\d-\d\d.*")


def hide_columns(text: str, found: list[str]) -> str:
    """Each value under a column named for a secret, in SQL inserts, COPY rows and CSV files."""
    lowered = text.lower()
    if not any(word in lowered for word in ("pass", "pwd", "secret", "token", "key", "credential")):
        return text
    if "insert" in lowered:
        text = _INSERT.sub(lambda m: _rows(m, found, _sql_cells), text)
    if "copy" in lowered:
        text = _COPY.sub(lambda m: _rows(m, found, _tab_cells), text)
    if "," in text:
        text = _CSV_HEADER.sub(lambda m: _rows(m, found, _csv_cells), text)
    return text


def _secret_columns(columns: str) -> list[int]:
    names = [c.strip().strip("`\"[]'") for c in columns.split(",")]
    return [i for i, name in enumerate(names) if _SECRET_COLUMN.search(name)]


def _sql_cells(rows: str) -> list[tuple[int, int]]:
    spans = []
    for row in _ROW.finditer(rows):
        spans.append((-1, -1))  # a row's start
        pos = row.start(1)
        for cell in _CELL.finditer(row.group(1)):
            if cell.start() == cell.end():
                break
            start, end = pos + cell.start(1), pos + cell.end(1)
            if rows[start:start + 1] in ("'", "\""):
                start, end = start + 1, end - 1
            spans.append((start, end))
    return spans


def _tab_cells(rows: str) -> list[tuple[int, int]]:
    return _split_cells(rows, "\t")


def _csv_cells(rows: str) -> list[tuple[int, int]]:
    return _split_cells(rows, ",")


def _split_cells(rows: str, separator: str) -> list[tuple[int, int]]:
    """Each line's cells; the table ends at the first line of another width than the first."""
    spans: list[tuple[int, int]] = []
    pos, width = 0, None
    for line in rows.split("\n"):
        cells = line.split(separator)
        width = width or len(cells)
        if len(cells) != width:
            break
        spans.append((-1, -1))
        start = pos
        for cell in cells:
            spans.append((start, start + len(cell)))
            start += len(cell) + 1
        pos += len(line) + 1
    return spans


Cells = Callable[[str], list[tuple[int, int]]]


def _rows(match: re.Match[str], found: list[str], cells: Cells) -> str:
    """The match with the secret columns' values of every row replaced."""
    wanted = _secret_columns(match.group("columns"))
    if not wanted:
        return match.group(0)
    rows = match.group("rows")
    hidden: list[tuple[int, int]] = []
    column = -1
    for start, end in cells(rows):
        if start < 0:
            column = -1
            continue
        column += 1
        value = rows[start:end]
        # (under a password column a dotted name is a password: Hollow.Raven38)
        if column in wanted and not _NOT_A_SECRET.fullmatch(value) and (
                password_like(value, dotted=True)):
            hidden.append((start, end))
    if not hidden:
        return match.group(0)
    offset = match.start("rows") - match.start()
    whole = match.group(0)
    for start, end in reversed(hidden):
        found.append("password")
        whole = whole[:offset + start] + mark("password") + whole[offset + end:]
    return whole
