"""What a command's exit status says beyond success or failure (kg_brain/surfaces/plugin_runs.py):
a question answered no, a difference found, a query's answer ("not up to date", "outdated",
"changes present"), as each tool documents its statuses."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

ASSIGNMENT = re.compile(r"^[A-Za-z_]\w*=")  # a variable set before a command
# Questions answered "no" by a status, in the tool's own words at most one line (`git rev-parse
# --verify` of a missing ref: `fatal: Needed a single revision`; `id` of no such user): the
# program (and subcommand), the options that make it a question, the statuses that say no.
_QUESTIONS: tuple[tuple[tuple[str, ...], set[str], set[int]], ...] = (
    (("git", "rev-parse"), {"--verify"}, {1, 128}),
    (("git", "cat-file"), {"-e"}, {1, 128}),
    (("git", "show-ref"), {"--verify", "--exists"}, {1, 2}),
    (("git", "merge-base"), {"--is-ancestor"}, {1}),
    (("git", "ls-remote"), {"--exit-code"}, {2}),
    (("pg_isready",), set(), {1, 2}),  # the server rejects connections, or does not answer
    (("id",), set(), {1}),
    (("getent",), set(), {2}),
)
# Statuses a tool documents as "the run worked and found a difference" (or "changes present",
# "checks pending"), apart from its error status: what it prints is the compared content, whatever
# words that holds. The program (and subcommand), the options that give the status that meaning
# (any of them; none needed when empty), the statuses.
DIFFERENCES: tuple[tuple[tuple[str, ...], set[str], set[int]], ...] = (
    (("diff",), set(), {1}),
    (("cmp",), set(), {1}),
    (("git", "diff"), {"--exit-code", "--quiet", "--no-index"}, {1}),
    (("terraform", "plan"), {"-detailed-exitcode"}, {2}),
    (("tofu", "plan"), {"-detailed-exitcode"}, {2}),
    (("helm", "diff"), {"--detailed-exitcode"}, {2}),
    (("gh", "pr", "checks"), set(), {8}),
    (("robocopy",), set(), set(range(1, 8))),  # files copied, extra or mismatched; 8+ failed
    (("make",), {"-q", "--question"}, {1}),  # a target not up to date; 2 is an error
    (("dvc", "status"), {"-q", "--quiet"}, {1}),
)
# Options and subcommands that make any program's run a query its status answers ("not up to
# date", "outdated", "changes present": `task --status`, `npm outdated`, `prisma migrate diff
# --exit-code`), with the statuses that answer; such a run fails only when a line says an error in
# words, not for a line under the program's name alone (`task: Task "x" is not up-to-date`). A
# subcommand `is-...` (`systemctl is-active`) asks a question answered in at most one line.
QUERY_WORDS = {"--status": {1}, "--question": {1}, "outdated": {1}, "--exit-code": {1, 2}}
# Programs (and subcommands) that are such queries whatever their options: kubectl diff's 1 is
# "differences found", and also the status of its own errors.
_QUERIES: tuple[tuple[tuple[str, ...], set[str], set[int]], ...] = (
    (("kubectl", "diff"), set(), {1}),)
# Options of these programs that take the next word as their value (`git -C dir diff`,
# `kubectl -n shop diff`), so that word is no subcommand.
_VALUE_OPTIONS = {"-c", "-C", "-n", "--namespace", "--context", "--kubeconfig", "-R", "--repo"}


def status_means(table: tuple[tuple[tuple[str, ...], set[str], set[int]], ...],
                 words: list[str], status: object) -> bool:
    """Whether the command is one of `table`'s and `status` one of its statuses. A Windows
    program run from WSL is named with its `.exe`."""
    words = [w for w in words if not ASSIGNMENT.match(w)]
    if not words:
        return False
    program = PurePosixPath(words[0]).name.removesuffix(".exe")
    plain_words = [w for i, w in enumerate(words[1:], 1)
                   if not w.startswith("-") and words[i - 1] not in _VALUE_OPTIONS]
    return any((program, *plain_words[:len(head) - 1]) == head and status in statuses and (
        not options or bool(options & set(words))) for head, options, statuses in table)


def answers_no(words: list[str], status: object, lines: list[str]) -> bool:
    """A question (see _QUESTIONS, an `is-...` subcommand) whose status says no, with at most one
    line of output."""
    asks = isinstance(status, int) and 0 < status < 5 and any(
        w.startswith("is-") for w in words[1:3] if not w.startswith("--"))
    return len(lines) <= 1 and (asks or status_means(_QUESTIONS, words, status))


def queried(words: list[str], status: object) -> bool:
    """A query (see QUERY_WORDS) whose status is one of its answers."""
    return any(status in QUERY_WORDS.get(w, ()) for w in words) or status_means(
        _QUERIES, words, status)
