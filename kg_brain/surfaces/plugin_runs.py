"""Which failed bash runs the OpenCode plugin stores as mistakes, and the line a mistake's
headline quotes (kg_brain/surfaces/plugin_api.py).

A run that exited non-zero is a mistake when its output shows an error, or when it was killed
(a crash signal, `timeout`'s 124) whatever it printed. An exit status alone is not one: `grep`
with no match, `test -f`, `cmp -s` say nothing, and a `diff` or `git diff --exit-code` shows a
difference (whatever words the files hold), not an error; nor is a run the user interrupted
(Ctrl-C, 130) or whose reader went away (141): it did not fail.

A line shows an error when it holds an error word as a word (`error_page`, `error.html`,
`worker-failures`, `src/errors/` are names, not errors), or when it is a diagnostic under the
name of a program or file the command runs (`cp: ...`, `make: *** ...`, `deploy.sh: line 3: ...`,
the convention of Unix tools in every language). The headline is the output's most telling
error line: a typed exception (`KeyError: 'name'`) first, then a line that is not a tally
(`Found 2 errors`, `1 failed, 3 passed`), an exit status relayed (`make: *** [...] Error 1`,
`exit code: 1`), advice (`for more information ...`) or an error word alone before a path
(`FAIL pkg 0.01s`); among these a labelled diagnostic (`error: ...`, `file.py:3: error ...`)
first; the last of the best. The colour codes of a terminal are no part of any line.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import PurePosixPath

# Terminal control sequences: colours (CSI) and titles/links (OSC).
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
# Error words (chosen on the tuning examples of tests/unit/test_plugin_failures.py), each a
# whole word: not glued by `_` or `-` to a name before it, nor by `_`, `.`, `-` or `/` to one
# after it.
_WORDS = (r"error|exception|traceback|fail|fatal|panic|abort|denied|refused|cannot|can't|"
          r"could not|couldn't|unable|not found|no such|no module named|undefined|unexpected|"
          r"invalid|timed out|timeout|segmentation fault|killed|usage:|ERR!")
_ERROR = re.compile(rf"(?<![\w-])[A-Za-z]*(?:{_WORDS})[A-Za-z]*(?![\w]|[./-]\w)", re.IGNORECASE)
# A diff's own lines (`diff`, `git diff --exit-code`): their text is the files' content. A
# unified diff's `--- a` comes with its `+++ b` (a test runner's `--- FAIL: TestX` is no diff).
_DIFF_START = re.compile(r"^(diff |--- .*\n\+\+\+ |@@ |\d+(,\d+)?[acd]\d+(,\d+)?$)", re.MULTILINE)
_DIFF_LINE = re.compile(r"^(diff |index |--- |\+\+\+ |@@|[-+<> ]|\\ No newline|\d+(,\d+)?[acd]\d)")
# A typed exception with its message: `KeyError: 'name'`, `AssertionError [ERR_X]: ...`.
_TYPED = re.compile(r"\b[A-Z][A-Za-z]*(?:Error|Exception)\b(?:\s*\[[^\]]*\])?:\s*\S")
# An error word labelling what follows (`error: ...`, `error[E0308]: ...`, `--- FAIL: TestX`),
# or a compiler's location (`src/a.py:3:` `src/a.ts(3,5):`) before the message.
_LABELLED = re.compile(rf"(?:{_WORDS})[^:\n]{{0,40}}:\s+\S", re.IGNORECASE)
_LOCATION = re.compile(r"^\s*[\w./\\-]+\.\w+(?::\d+){1,2}:\s|^\s*[\w./\\-]+\.\w+\(\d+,\d+\):")
# Lines that sum up or relay a failure told elsewhere, or advise: never the headline while
# another error line is there.
_TALLY = re.compile(
    r"(?<![\d.:])\d+\s+(?:[A-Za-z()]+\s+)?(?:errors?|failures?|failed|problems?)\b|"
    r"\b(?:errors?|failures?|failed)\s*[:=]\s*\d|\bexit(?:ed)?\b|\bError \d+\s*$|"
    r"for more info|for details|\bre-?run\b|\brun with\b|can be found in", re.IGNORECASE)
# Statuses of a run killed: `timeout`'s, and the shell's 128 + a crash signal (ILL, ABRT, BUS,
# FPE, KILL, SEGV); 130 (INT: Ctrl-C) and 141 (PIPE: the reader closed) are interruptions.
TIMED_OUT = 124
KILLED = {132: "SIGILL", 134: "SIGABRT", 135: "SIGBUS", 136: "SIGFPE", 137: "SIGKILL",
          139: "SIGSEGV"}
INTERRUPTED = (130, 141)
SCAN_LIMIT = 16_000  # the output's last characters judged


@dataclass(frozen=True)
class Verdict:
    mistake: bool
    headline: str  # the line a mistake's title quotes


def plain(text: str) -> str:
    """Output as read: the terminal's colour and control sequences removed."""
    return _ANSI.sub("", text)


def _names(command: str) -> set[str]:
    """The programs and files a command names: its words as written and their base names."""
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    words = [w for w in words if w and not w.startswith("-") and "=" not in w]
    return {w for w in words} | {PurePosixPath(w).name for w in words if PurePosixPath(w).name}


def _lines(output: str) -> list[str]:
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    if _DIFF_START.search(output):
        lines = [line for line in lines if not _DIFF_LINE.match(line)]
    return lines


def _shows_error(line: str, names: set[str]) -> bool:
    if _ERROR.search(line):
        return True
    program = line.split(":", 1)[0] if ":" in line else ""
    return bool(program) and program in names


def _bare(line: str, names: set[str]) -> bool:
    """An error word and nothing else but the command's names, paths and numbers (`FAIL pkg
    0.01s`, `ERROR a.py`, `npm ERR!`)."""
    rest = _ERROR.sub(" ", line).split()
    return all(w in names or re.fullmatch(r"[\W\d_]*|\S*[/.:]\S*", w) for w in rest)


def _rank(line: str, index: int, names: set[str]) -> tuple[bool, bool, bool, bool, bool, int]:
    said = not _TALLY.search(line) and not _bare(line, names)
    error = bool(_ERROR.search(line))
    labelled = bool(_LABELLED.search(line) or _LOCATION.match(line))
    return bool(_TYPED.search(line)), said, error and labelled, error, labelled, index


def judge(command: str, status: object, output: str) -> Verdict:
    """Whether a run that exited with `status` is a mistake, and its headline (see above)."""
    lines = _lines(plain(output)[-SCAN_LIMIT:])
    names = _names(command)
    telling = [(_rank(line, i, names), line) for i, line in enumerate(lines)
               if _shows_error(line, names) or _LOCATION.match(line)]
    errors = [item for item in telling if _shows_error(item[1], names)]
    killed = KILLED.get(status) if isinstance(status, int) else None
    timed_out = status == TIMED_OUT
    if telling:
        headline = max(telling)[1][:500]
    elif killed or timed_out:
        headline = f"killed by {killed}" if killed else "timed out"
        headline += f" (exit {status})"
    else:
        headline = (lines or ["(no output)"])[-1][:500]
    interrupted = status in INTERRUPTED
    return Verdict(not interrupted and (bool(errors) or bool(killed) or timed_out), headline)
