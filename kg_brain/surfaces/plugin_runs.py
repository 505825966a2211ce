"""Which failed bash runs the OpenCode plugin stores as mistakes, and the line a mistake's
headline quotes (kg_brain/surfaces/plugin_api.py).

A run that exited non-zero is a mistake when its output shows an error, when it was killed
(a crash signal, `timeout`'s 124) whatever it printed, or when it ran a check (`--check`,
`-check`, `pip check`, `go mod verify`, `--verify-no-changes`, `npm audit`, `pip-audit`) that
printed anything: a check's status says what it found fails, in whatever words. An exit status
alone is not one: `grep` with no match, `test -f`, `cmp -s` say nothing, and a `diff` or `git
diff --exit-code` shows a difference (whatever words the files hold), not an error; nor is a
question answered no by its status in at most one line of its own words (`git rev-parse
--verify` of a missing ref, `git cat-file -e`, `id` of no such user); nor a run the user
interrupted (Ctrl-C, 130) or whose reader went away (141): it did not fail.

A line shows an error when it holds an error word as a word (`error_page`, `error.html`,
`worker-failures`, `src/errors/` are names, not errors; `did not`, `gave up` are failures in
plain words), when it is a finding at a location (`a.go:3:2: unreachable code`, `A.cs(3,5):
warning ...`; not a `note:` nor a stack frame without a message), or when it is a diagnostic
under the name of a program or file the command runs (`cp: ...`, `make: *** ...`, `deploy.sh:
line 3: ...`, the convention of Unix tools in every language). The headline is the output's
most telling error line: a typed exception (`KeyError: 'name'`) first, then a line that is not
a tally (`Found 2 errors`, `1 failed, 3 passed`), an exit status relayed (`make: *** [...] Error
1`, `exit code: 1`, `(code 23)`), a step's failure relayed and no more (`error: update failed`,
`ESM Build failed`), advice (`for more information ...`, `-> [Help 1]`) or an error word alone
before a path (`FAIL pkg 0.01s`); among these a labelled diagnostic (`error: ...`, `file.py:3:
error ...`, `File.java:[3,9] ...`) first; the last of the best, with the next line when it ends
in `:` (what it introduces). A check with no error line is headed by its last sentence that is
not advice, progress or a command to run. The colour codes of a terminal are no part of any line.
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
          r"invalid|timed out|timeout|segmentation fault|killed|usage:|ERR!|did not|didn't|"
          r"gave up|giving up")
_ERROR = re.compile(rf"(?<![\w-])[A-Za-z]*(?:{_WORDS})[A-Za-z]*(?![\w]|[./-]\w)", re.IGNORECASE)
# A diff's own lines (`diff`, `git diff --exit-code`): their text is the files' content. A
# unified diff's `--- a` comes with its `+++ b` (a test runner's `--- FAIL: TestX` is no diff).
_DIFF_START = re.compile(r"^(diff |--- .*\n\+\+\+ |@@ |\d+(,\d+)?[acd]\d+(,\d+)?$)", re.MULTILINE)
_DIFF_LINE = re.compile(r"^(diff |index |--- |\+\+\+ |@@|[-+<> ]|\\ No newline|\d+(,\d+)?[acd]\d)")
# A typed exception with its message: `KeyError: 'name'`, `AssertionError [ERR_X]: ...`.
_ASSIGNMENT = re.compile(r"^[A-Za-z_]\w*=")
_TYPED = re.compile(r"\b[A-Z][A-Za-z]*(?:Error|Exception)\b(?:\s*\[[^\]]*\])?:\s*\S")
# An error word labelling what follows (`error: ...`, `error[E0308]: ...`, `--- FAIL: TestX`),
# or a compiler's location (`src/a.py:3:` `src/a.ts(3,5):`) before the message.
_LABELLED = re.compile(rf"(?:{_WORDS})[^:\n]{{0,40}}:\s+\S", re.IGNORECASE)
_LOCATION = re.compile(r"^\s*[\w./\\-]+\.\w+(?::\d+){1,2}:\s|^\s*[\w./\\-]+\.\w+\(\d+,\d+\):|"
                       r"^\s*\[\w+\]\s+[\w./\\-]+\.\w+:\[\d+,\d+\]\s")
# A location's message that is a remark, not a finding (`a.py:3: note: ...`).
_REMARK = re.compile(r"^\s*(?:note|info|hint|help)\b", re.IGNORECASE)
# Lines that sum up or relay a failure told elsewhere, or advise: never the headline while
# another error line is there.
_TALLY = re.compile(
    r"(?<![\d.:])\d+\s+(?:[A-Za-z()]+\s+)?(?:errors?|failures?|failed|problems?)\b|"
    r"\b(?:errors?|failures?|failed)\s*[:=]\s*\d|\bexit(?:ed)?\b|\bError \d+\s*$|"
    r"\bcode:?\s*\d+\b|for more info|for details|\bre-?run\b|\brun with\b|can be found in|"
    r"\[Help \d+\]", re.IGNORECASE)
# A line relaying that a step failed and no more (`error: update failed`, `ESM Build failed`,
# `evaluation failed :(`), once its label, bracketed asides and a duration are set apart.
_ADVICE = re.compile(r"(?:to|run|try|see|fix|hint|use|please)\b", re.IGNORECASE)
_LABEL = re.compile(r"^[^:\s][^:]{0,40}:\s+")
_ASIDE = re.compile(r"\([^)]*\w[^)]*\)|\[[^\]]*\w[^\]]*\]|\bin [\d.]+\s*m?s\b")
_RELAY = re.compile(r"(?:[\w-]+(?:\s+|\.{2,}\s*|…\s*)){0,2}fail(?:ed|ure|s)?", re.IGNORECASE)
# Checks: a subcommand or option that makes a tool report what fails a check instead of acting
# (`--check`, `-check`, `--check-only`, `pip check`, `go mod verify`, `--verify-no-changes`,
# `npm audit`, `pip-audit`): its non-zero status says the check failed, in whatever words.
_CHECK = re.compile(r"-{0,2}(?:\w+-)?(?:check|verify|audit)(?:-[\w-]+)?(?:=.*)?")
# Questions answered "no" by a status, in the tool's own words at most one line (`git rev-parse
# --verify` of a missing ref: `fatal: Needed a single revision`; `id` of no such user): the
# program (and subcommand), the options that make it a question, the statuses that say no.
_QUESTIONS: tuple[tuple[tuple[str, ...], set[str], set[int]], ...] = (
    (("git", "rev-parse"), {"--verify"}, {1, 128}),
    (("git", "cat-file"), {"-e"}, {1, 128}),
    (("git", "show-ref"), {"--verify", "--exists"}, {1, 2}),
    (("git", "merge-base"), {"--is-ancestor"}, {1}),
    (("git", "ls-remote"), {"--exit-code"}, {2}),
    (("id",), set(), {1}),
    (("getent",), set(), {2}),
)
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


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def _names(words: list[str]) -> set[str]:
    """The programs and files a command names: its words as written and their base names."""
    words = [w for w in words if w and not w.startswith("-") and "=" not in w]
    return {w for w in words} | {PurePosixPath(w).name for w in words if PurePosixPath(w).name}


def _is_check(words: list[str]) -> bool:
    return any(_CHECK.fullmatch(w) for w in words)


def _answers_no(words: list[str], status: object, lines: list[str]) -> bool:
    """A question (see _QUESTIONS) whose status says no, with at most one line of output."""
    words = [w for w in words if not _ASSIGNMENT.match(w)]
    if not words or len(lines) > 1:
        return False
    program = PurePosixPath(words[0]).name
    plain_words = [w for w in words[1:] if not w.startswith("-")]
    for head, options, statuses in _QUESTIONS:
        if (program, *plain_words[:len(head) - 1]) == head and status in statuses and (
                not options or options & set(words)):
            return True
    return False


def _lines(output: str) -> list[str]:
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    if _DIFF_START.search(output):
        lines = [line for line in lines if not _DIFF_LINE.match(line)]
    return lines


def _finding(line: str) -> bool:
    """A diagnostic at a location (`a.go:3:2: ...`, `A.cs(3,5): warning ...`), not a remark."""
    found = _LOCATION.match(line)
    message = line[found.end():] if found else ""
    return not _REMARK.match(message) and bool(re.search(r"[A-Za-z]{2}", _ASIDE.sub("", message)))


def _relay(line: str) -> bool:
    return bool(_RELAY.fullmatch(re.sub(r"^[^\w]+|[^\w]+$", "", _ASIDE.sub(" ", _LABEL.sub(
        "", line))).strip()))


def _shows_error(line: str, names: set[str]) -> bool:
    if _ERROR.search(line) or _finding(line):
        return True
    program = line.split(":", 1)[0] if ":" in line else ""
    return bool(program) and program in names


def _bare(line: str, names: set[str]) -> bool:
    """An error word and nothing else but the command's names, paths and numbers (`FAIL pkg
    0.01s`, `ERROR a.py`, `npm ERR!`)."""
    rest = _ERROR.sub(" ", line).split()
    return all(w in names or re.fullmatch(r"[\W\d_]*|\S*[/.:]\S*", w) for w in rest)


def _rank(line: str, index: int, names: set[str]) -> tuple[bool, bool, bool, bool, bool, int]:
    said = not _TALLY.search(line) and not _bare(line, names) and not _relay(line)
    error = bool(_ERROR.search(line)) or _finding(line)
    labelled = bool(_LABELLED.search(line) or _LOCATION.match(line))
    return bool(_TYPED.search(line)), said, error and labelled, error, labelled, index


def _sentence(line: str) -> bool:
    return len(re.findall(r"(?<!\S)[a-z]+(?![\w=])", line)) >= 3


def _plain_headline(lines: list[str], program: str) -> str:
    """A failed check's headline when no line shows an error: its last sentence that is not
    advice (`To address all issues, run:`, `fix available via ...`), progress (`Checking...`) or
    a command to run; else its last line."""
    said = [line for line in lines if _sentence(line) and not _ADVICE.match(line)
            and not line.endswith(("...", "…")) and line.split()[0] != program]
    return (said or lines or ["(no output)"])[-1]


def judge(command: str, status: object, output: str) -> Verdict:
    """Whether a run that exited with `status` is a mistake, and its headline (see above)."""
    lines = _lines(plain(output)[-SCAN_LIMIT:])
    words = _words(command)
    names = _names(words)
    telling = [(_rank(line, i, names), line) for i, line in enumerate(lines)
               if _shows_error(line, names) or _LOCATION.match(line)]
    errors = [item for item in telling if _shows_error(item[1], names)]
    killed = KILLED.get(status) if isinstance(status, int) else None
    timed_out = status == TIMED_OUT
    check = _is_check(words) and bool(lines)
    if telling:
        best = max(telling)
        headline = best[1]
        index = best[0][-1]
        if headline.endswith(":") and index + 1 < len(lines):
            headline += " " + lines[index + 1]
        headline = headline[:500]
    elif killed or timed_out:
        headline = f"killed by {killed}" if killed else "timed out"
        headline += f" (exit {status})"
    elif check:
        headline = _plain_headline(lines, PurePosixPath(words[0]).name if words else "")[:500]
    else:
        headline = (lines or ["(no output)"])[-1][:500]
    interrupted = status in INTERRUPTED
    answered = _answers_no(words, status, lines)
    return Verdict(not interrupted and not answered and (
        bool(errors) or bool(killed) or timed_out or check), headline)
