"""Which failed bash runs the OpenCode plugin stores as mistakes, and the line a mistake's headline
quotes (kg_brain/surfaces/plugin_api.py).

A run that exited non-zero is a mistake when its output shows an error, when it was killed (a crash
signal, `timeout`'s 124) whatever it printed, or when it ran a check (`--check`, `-check`, `pip
check`, `go mod verify`, `--verify-no-changes`, `npm audit`, `pip-audit`, a formatter's `--diff` or
`--list-different`) that printed anything: a check's status says what it found fails, in whatever
words. An exit status alone is not one: `grep` with no match, `test -f`, `cmp -s` say nothing; a
status a tool documents as "it worked and found a difference" apart from its error status (`diff`,
`cmp` and `git diff --exit-code`'s 1, `terraform`/`tofu plan -detailed-exitcode`'s and `helm diff
--detailed-exitcode`'s 2, `gh pr checks`' 8 for checks pending, robocopy's 1-7, `make -q`'s 1) is
no error whatever words the compared content holds, nor is a query's answer (`--status`,
`--question`, `outdated`, `--exit-code`, `kubectl diff`: "not up to date", "outdated", "changes
present") unless a line says an error in words, nor is a diff's text shown with another status; nor
is a question answered no by its status in at most one line of its own words (`git rev-parse
--verify` of a missing ref, `git cat-file -e`, `id` of no such user, an `is-...` subcommand such as
`systemctl is-active`, `pg_isready`); nor a run the user interrupted (Ctrl-C, 130), whose reader
went away (141) or that was asked to stop from outside (SIGTERM, 143): it did not fail. `timeout`
ending a program that runs until it is stopped (a watcher, a development server: a `watch`,
`serve`, `server` or `dev` word or `--watch` in its command, or output that says it waits for
changes, watches, listens at an address or how to stop it) is how the agent stops it, as is
`timeout -s KILL` ending a command that serves, watches or reloads: such a run is judged by its
output alone. A command the shell could not run (126, 127: a shim with no version chosen, a file
that is not executable) is a mistake whatever it printed, headed by its first line.

A line shows an error when it holds an error word as a word (`error_page`, `error.html`,
`worker-failures`, `src/errors/` are names, not errors; `did not`, `gave up` are failures in plain
words; "error" as compilers, make and git say it in other locales: `Fehler`, `erreur`, `エラー`,
`错误`...; apt's and kotlinc's `E:`; a severity tag above error: `[emerg]`, `[ALERT]`, `CRITICAL`; a
tally of none, `0 errors`, is none), when it is a finding at a location (`a.go:3:2: unreachable
code`, `A.cs(3,5): warning ...`, `C:\\src\\a.c(41): ...`; not a `note:` nor a stack frame without a
message) or an assertion's values (`Expected: 30` above `Received: 27`), or when it is a diagnostic
under the name of a program or file the command runs (`cp: ...`, `make: *** ...`, `deploy.sh: line
3: ...`, the convention of Unix tools in every language). A wrapper relaying its child's exit
status (`exit status 1`) below what the child said shows an error. The headline is the output's
most telling error line: a typed exception (`KeyError: 'name'`) first, then a line that is not a
tally (`Found 2 errors`, `1 failed, 3 passed`), an exit status relayed (`make: *** [...] Error 1`,
`exit code: 1`, `(code 23)`, PowerShell's `+ CategoryInfo : ...`), a step's failure relayed and no
more (`error: update failed`, `ESM Build failed`) or an error word alone before a path (`FAIL pkg
0.01s`), and below even these advice (`for more information ...`, `-> [Help 1]`, `See https://...`,
`Press f to ...`); among these a finding at a location with an error word (`file.py:3: error ...`;
not its `note`, not a `warning`) first, then a labelled diagnostic (`error: ...`, `File.java:[3,9]
...`, ` ERR_PNPM_X ...`); the last of the best, with the next line when it ends in `:` (what it
introduces); when the best is a wrapper's summary (a tally, a relayed failure or exit status), the
sentence nearest above it. A prefix a wrapper puts on each line of what it ran (`web:build: `,
`api-1 | `) and a label before a bare name (`npm ERR! in workspace: web@1.0.0`) are no part of a
message. A check with no error line is headed by its last sentence that is not advice, progress or
a command to run. The colour codes of a terminal are no part of any line.
"""
from __future__ import annotations

import re
import shlex
from collections import Counter
from dataclasses import dataclass
from pathlib import PurePosixPath

from kg_brain.surfaces.plugin_statuses import (
    ASSIGNMENT,
    DIFFERENCES,
    answers_no,
    queried,
    status_means,
)

# Terminal control sequences: colours (CSI) and titles/links (OSC).
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
# Error words (chosen on the tuning examples of tests/unit/test_plugin_failures.py), each a
# whole word: not glued by `_` or `-` to a name before it, nor by `_`, `.`, `-` or `/` to one
# after it.
_WORDS = (r"error|exception|traceback|fail|fatal|panic|abort|denied|refused|cannot|can't|"
          r"could not|couldn't|unable|not found|no such|no module named|undefined|unexpected|"
          r"invalid|timed out|timeout|segmentation fault|killed|usage:|ERR!|did not|didn't|"
          r"gave up|giving up|not recognized|conflict")
# "error" as compilers, make, git and coreutils say it in other locales (de, fr, es, pt, it, nl,
# pl, ru, tr: the start of a word), and in scripts written without spaces between words (ja, zh,
# ko: wherever it stands); and `E:`, the error tag of apt, dpkg and kotlinc.
_LOCAL_WORDS = r"fehler|erreur|erro|fout|błąd|błęd|ошибк|hata"
_UNSPACED_WORDS = r"エラー|错误|錯誤|오류"
# Severity tags at or above error of servers' and validators' logs (`[emerg]`, `[ALERT]`,
# `CRITICAL`, java's `SEVERE`), bracketed or leading the line.
_SEVERITY = r"\[(?:emerg|alert|crit|critical|severe)\]|^(?-i:EMERG|ALERT|CRIT|CRITICAL|SEVERE)\b"
_ERROR = re.compile(rf"(?<![\w-])(?:[A-Za-z]*(?:{_WORDS})[A-Za-z]*|(?:{_LOCAL_WORDS})[^\W\d_]*)"
                    rf"(?![\w]|[./-]\w)|{_UNSPACED_WORDS}|^E\d*:\s|{_SEVERITY}", re.IGNORECASE)
# A tally of none (`Found 0 errors`, `0 failed`, `no errors`): no error said.
_NONE = re.compile(r"\b(?:0|no)\s+(?:errors?|failures?|failed|problems?)\b", re.IGNORECASE)
# A diff's own lines (`diff`, `git diff --exit-code`): their text is the files' content. A
# unified diff's `--- a` comes with its `+++ b` (a test runner's `--- FAIL: TestX` is no diff).
_DIFF_START = re.compile(r"^(diff |--- .*\n\+\+\+ |@@ |\d+(,\d+)?[acd]\d+(,\d+)?$)", re.MULTILINE)
_DIFF_LINE = re.compile(r"^(diff |index |--- |\+\+\+ |@@|[-+<> ]|\\ No newline|\d+(,\d+)?[acd]\d)")
# A typed exception with its message: `KeyError: 'name'`, `AssertionError [ERR_X]: ...`.
_TYPED = re.compile(r"\b[A-Z][A-Za-z]*(?:Error|Exception)\b(?:\s*\[[^\]]*\])?:\s*\S")
# An error word labelling what follows (`error: ...`, `error[E0308]: ...`, `--- FAIL: TestX`,
# `E: ...`).
_LABELLED = re.compile(rf"(?:{_WORDS}|{_LOCAL_WORDS}|{_UNSPACED_WORDS})[^:\n]{{0,40}}:\s+\S|"
                       r"^E\d*:\s", re.IGNORECASE)
# A compiler's location before its message: `src/a.py:3:`, `a.go:3:2 message` (a column, then a
# space), `src/a.ts(3,5):`, MSVC's `C:\src\a.c(41):`, maven's `[ERROR] A.java:[3,9] `.
_PATH = r"(?:[A-Za-z]:\\)?[\w./\\-]+\.\w+"
_LOCATION = re.compile(rf"^\s*{_PATH}(?::\d+){{1,2}}:\s|^\s*{_PATH}:\d+:\d+\s+(?=\S)|"
                       rf"^\s*{_PATH}\(\d+(?:,\d+)?\):|^\s*\[\w+\]\s+{_PATH}:\[\d+,\d+\]\s")
# An assertion's values, as test runners of many languages print them (`Expected: 30` with
# `Received: 27`, `Actual: ...` or `But was: ...` on the next line): a finding with no error word.
_EXPECTED = re.compile(r"^Expected:\s+\S")
_GOT = re.compile(r"^(?:Received|Actual|But was):\s+\S", re.IGNORECASE)
# A location's message that is a remark, not a finding (`a.py:3: note: ...`).
_REMARK = re.compile(r"^\s*(?:note|info|hint|help)\b", re.IGNORECASE)
# A label before a bare name or version (`npm ERR! While resolving: web@0.1.0`, `Found:
# react@18.2.0`): context of a message told on other lines.
_CONTEXT = re.compile(r"^[^:]*:\s+[\w@/.^~=<>-]+$")
# Lines that sum up or relay a failure told elsewhere (`The error appears to be in ...`, `This
# error happened while ...`): never the headline while another error line is there.
_TALLY = re.compile(
    r"(?<![\d.:])\d+\s+(?:[A-Za-z()]+\s+)?(?:errors?|failures?|failed|problems?)\b|"
    r"\b(?:errors?|failures?|failed)\s*[:=]\s*\d|\bexit(?:ed)?\b|"
    rf"(?:\bError|\b(?:{_LOCAL_WORDS})|{_UNSPACED_WORDS}) \d+\s*$|\bcode:?\s*\d+\b|"
    r"^\+\s+\w+\s+:\s|^(?:the|this|that|these)\s+(?:errors?|failures?|exceptions?)\b|"
    r"\b(?:errors|failures)\s+(?:were\s+|have\s+been\s+)?(?:found|emitted|occurred|detected)\b",
    re.IGNORECASE)
# Advice: where to read more, what to run or press; below even a tally.
_POINTER = re.compile(r"for more info|for details|for help|\bre-?run\b|\brun with\b|"
                      r"can be found in|\[Help \d+\]|\b(?:see|visit):?\s+https?://|"
                      r"\bpress\s+\S+\s+to\b", re.IGNORECASE)
# A line relaying that a step failed and no more (`error: update failed`, `ESM Build failed`,
# `evaluation failed :(`), once its label, bracketed asides and a duration are set apart.
_ADVICE = re.compile(r"(?:to|run|try|see|fix|hint|use|please)\b", re.IGNORECASE)
_LABEL = re.compile(r"^(?:[^:\s][^:]{0,40}:|[\w@/.-]+\s+(?:>|ERR!)|[A-Z]{2,}(?=\s{2}))\s+")
_ASIDE = re.compile(r"\([^)]*\w[^)]*\)|\[[^\]]*\w[^\]]*\]|\bin [\d.]+\s*m?s\b")
_RELAY = re.compile(r"(?:[\w-]+(?:\s+|\.{2,}\s*|…\s*)){0,2}fail(?:ed|ure|s)?|"
                    r"[^:]*\s(?:has\s+)?failed(?:\s+with\s+(?:an?\s+)?(?:error|exception|(?:exit\s+)?"
                    r"(?:code|status)\s+\d+))?", re.IGNORECASE)
# Checks: a subcommand or option that makes a tool report what fails a check instead of acting
# (`--check`, `-check`, `--check-only`, `pip check`, `go mod verify`, `--verify-no-changes`,
# `npm audit`, `pip-audit`): its non-zero status says the check failed, in whatever words.
_CHECK = re.compile(
    r"-{0,2}(?:\w+-)?(?:check|verify|audit|diff|list-different)(?:-[\w-]+)?(?:=.*)?")
# Statuses of a run killed: `timeout`'s, and the shell's 128 + a crash signal (ILL, ABRT, BUS,
# FPE, KILL, SEGV); 130 (INT: Ctrl-C), 141 (PIPE: the reader closed) and 143 (TERM: asked to stop
# from outside) are interruptions.
TIMED_OUT = 124
KILLED = {132: "SIGILL", 134: "SIGABRT", 135: "SIGBUS", 136: "SIGFPE", 137: "SIGKILL",
          139: "SIGSEGV"}
INTERRUPTED = (130, 141, 143)
# A program that runs until it is stopped (a watcher, a development server): a `watch`, `serve`,
# `server` or `dev` word or a `--watch` option in its command, or output that says it waits for
# changes or how to stop it. `timeout` ending it is how the agent stops it, no failure.
_RUNS_UNTIL_STOPPED = re.compile(r"watch|serve|server|dev|--watch\w*(?:=.*)?|--reload")
_WAITING = re.compile(r"\b(?:watching|waiting) for (?:file )?changes\b|\bwatching\b|"
                      r"\b(?:press|ctrl[-+]c)\b.{0,30}\b(?:quit|stop|exit)\b|"
                      r"\b(?:listening|running|serving|available|ready)\b.{0,50}"
                      r"(?:https?://|\bport\s+\d{2,5}\b|:\d{2,5}\b)", re.IGNORECASE)
# A wrapper relaying its child's exit status (`exit status 1`, `exited with code 2`, make's
# `Error 1`): the run failed, told in the lines above.
_EXIT = re.compile(r"\bexit(?:ed)?\s+(?:with\s+)?(?:status|code):?\s*[1-9]\d*\b|"
                   r"\bError [1-9]\d*$")
# The shell's statuses for a command it could not run: found but not executable (a shim with no
# version chosen, a file without its execute bit), not found.
CANNOT_RUN = (126, 127)
# The prefix a wrapper puts before each line of a program it runs: turbo's `web:build: `, lerna's
# `@shop/utils: `, docker compose's `api-1  | ` (a name with a `:`, `@` or `/` in it, or before
# `|`), not a label such as `error: `.
_PREFIX = re.compile(r"^(?:[\w.-]+(?::[\w.#-]+)+:|@?[\w.-]+/[\w./-]+:|@[\w.-]+:|[\w.-]+\s+\|)\s")
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


def _under_timeout(words: list[str]) -> bool:
    words = [w for w in words if not ASSIGNMENT.match(w)]
    return bool(words) and PurePosixPath(words[0]).name == "timeout"


def _runs_until_stopped(words: list[str], lines: list[str]) -> bool:
    return any(_RUNS_UNTIL_STOPPED.fullmatch(w) for w in words) or any(
        _WAITING.search(line) for line in lines[-5:])


def _lines(output: str) -> list[str]:
    lines = output.splitlines()
    if _DIFF_START.search(output):  # a diff's lines, its context lines too, are the files' text
        lines = [line for line in lines if not _DIFF_LINE.match(line)]
    prefixes = Counter(found.group() for line in lines if (found := _PREFIX.match(line)))
    if prefixes:  # a wrapper's prefix on the lines of the program it ran
        prefix, count = prefixes.most_common(1)[0]
        if count >= 3:
            lines = [line.removeprefix(prefix) for line in lines]
    return [line.strip() for line in lines if line.strip()]


def _finding(line: str) -> bool:
    """A diagnostic at a location (`a.go:3:2: ...`, `A.cs(3,5): warning ...`), not a remark."""
    found = _LOCATION.match(line)
    message = line[found.end():] if found else ""
    return not _REMARK.match(message) and bool(re.search(r"[A-Za-z]{2}", _ASIDE.sub("", message)))


def _relay(line: str) -> bool:
    return bool(_RELAY.fullmatch(re.sub(r"^[^\w]+|[^\w]+$", "", _ASIDE.sub(" ", _LABEL.sub(
        "", line))).strip()))


def _worded(line: str) -> bool:
    """An error word in the line, a tally of none aside."""
    return bool(_ERROR.search(_NONE.sub(" ", line)))


def _shows_error(line: str, names: set[str]) -> bool:
    if _worded(line) or _finding(line):
        return True
    program = line.split(":", 1)[0] if ":" in line else ""
    return bool(program) and program in names


def _bare(line: str, names: set[str]) -> bool:
    """An error word and nothing else but the command's names, paths and numbers (`FAIL pkg
    0.01s`, `ERROR a.py`, `npm ERR!`), or a context label before a name (`npm ERR! in workspace:
    shop@1.0.0`)."""
    rest = _ERROR.sub(" ", line).split()
    if _worded(line) and _CONTEXT.search(_ERROR.sub(" ", line)):
        return True
    return _worded(line) and all(
        w in names or re.fullmatch(r"[\W\d_]*|\S*[/.:]\S*", w) for w in rest)


def _rank(line: str, index: int,
          names: set[str]) -> tuple[bool, bool, bool, bool, bool, bool, bool, int]:
    advice = bool(_POINTER.search(line))
    said = not advice and not _TALLY.search(line) and not _bare(line, names) and not _relay(line)
    worded = _worded(line)
    located = bool(_LOCATION.match(line))
    error = worded or _finding(line)
    labelled = bool(_LABELLED.search(line)) and not _CONTEXT.search(line) or located
    return (bool(_TYPED.search(line)), said, worded and located, error and labelled, error,
            labelled, not advice, index)


def _sentence(line: str) -> bool:
    return len(re.findall(r"(?<!\S)[a-z]+(?![\w=])", line)) >= 3


def _above_summary(lines: list[str], index: int) -> int | None:
    """The sentence nearest above a wrapper's summary (a tally, a relayed failure or exit status)
    within a few lines: what the wrapped tool said before the wrapper summed it up."""
    for j in range(index - 1, max(index - 8, 0) - 1, -1):
        line = lines[j]
        if _sentence(line) and not _TALLY.search(line) and not _POINTER.search(line) and not \
                _relay(line) and not line.startswith(">"):
            return j
    return None


def _plain_headline(lines: list[str], program: str) -> str:
    """A failed check's headline when no line shows an error: its last sentence that is not
    advice (`To address all issues, run:`, `fix available via ...`), progress (`Checking...`) or
    a command to run; else its last line."""
    said = [line for line in lines if _sentence(line) and not _ADVICE.match(line)
            and not line.endswith(("...", "…")) and line.split()[0] != program]
    findings = [line for line in said if not re.match(r"\d+\s", line)]  # not a count of them
    return (findings or said or lines or ["(no output)"])[-1]


def judge(command: str, status: object, output: str) -> Verdict:
    """Whether a run that exited with `status` is a mistake, and its headline (see above)."""
    lines = _lines(plain(output)[-SCAN_LIMIT:])
    words = _words(command)
    names = _names(words)
    telling = [(_rank(line, i, names), line) for i, line in enumerate(lines)
               if _shows_error(line, names) or _LOCATION.match(line)]
    # a relayed exit status shows an error when the wrapped program said something above it
    telling += [(_rank(line, i, names), line) for i, line in enumerate(lines)
                if i and _EXIT.search(line) and not _shows_error(line, names)]
    errors = [item for item in telling if _shows_error(item[1], names) or _EXIT.search(item[1])]
    # an assertion's values rank as a line that says an error with no error word nor label
    assertions = [((False, True, False, False, True, False, True, i), f"{line} {lines[i + 1]}")
                  for i, line in enumerate(lines[:-1])
                  if _EXPECTED.match(line) and _GOT.match(lines[i + 1])]
    telling += assertions
    errors += assertions
    killed = KILLED.get(status) if isinstance(status, int) else None
    timed_out = status == TIMED_OUT
    cannot_run = status in CANNOT_RUN
    changed = re.findall(r"^\+\+\+ (?:[ab]/)?(\S+)", plain(output), re.MULTILINE)
    # 124 is `timeout`'s status
    check = _is_check(words) and bool(lines or changed) and not timed_out
    if telling:
        best = max(telling)
        headline = best[1]
        index = best[0][-1]
        if not any(best[0][:2]) and best[0][-2]:  # a summary: what stands above it says more
            above = _above_summary(lines, index)
            if above is not None:
                headline, index = lines[above], above
        if headline.endswith(":") and index + 1 < len(lines):
            headline += " " + lines[index + 1]
        headline = headline[:500]
    elif killed or timed_out:
        headline = f"killed by {killed}" if killed else "timed out"
        headline += f" (exit {status})"
    elif check and not lines:
        headline = f"would change {', '.join(changed)}"[:500]
    elif check:
        headline = _plain_headline(lines, PurePosixPath(words[0]).name if words else "")[:500]
    elif cannot_run:
        headline = (lines or [f"could not run (exit {status})"])[0][:500]
    else:
        headline = (lines or ["(no output)"])[-1][:500]
    interrupted = status in INTERRUPTED
    answered = answers_no(words, status, lines) or status_means(DIFFERENCES, words, status) or (
        queried(words, status) and not any(_worded(line) or _finding(line) for _, line in errors))
    # `timeout -s KILL` ends a program whose command says it serves or watches with that signal
    stopped = (timed_out and _runs_until_stopped(words, lines)) or (
        bool(killed) and _under_timeout(words) and _runs_until_stopped(words, []))
    return Verdict(not interrupted and not answered and not stopped and (
        bool(errors) or bool(killed) or timed_out or check or cannot_run) or (
        stopped and bool(errors)), headline)
