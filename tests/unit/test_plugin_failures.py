"""Which failed runs the plugin stores as mistakes (kg_brain/surfaces/plugin_session.py
shows_error): those whose output shows an error, not an exit status alone. The rule was chosen on
TUNING; CHECK was written after it was fixed and never used to change it."""

from __future__ import annotations

import pytest

from kg_brain.surfaces.plugin_session import shows_error

# (command, output, worth remembering)
TUNING = [
    ("grep -rn retry_budget src", "", False),
    ("test -f build/app.js", "", False),
    ("cmp -s a.bin b.bin", "", False),
    ("grep -c TODO main.py", "0\n", False),
    ("diff old.conf new.conf", "3c3\n< port = 8080\n---\n> port = 8081\n", False),
    ("git diff --exit-code", "diff --git a/app.py b/app.py\nindex 3f2a..9b1c 100644\n--- a/app.py"
     "\n+++ b/app.py\n@@ -1,2 +1,2 @@\n-raise ValueError('bad input')\n+raise TypeError('bad')\n",
     False),
    ("pgrep -f worker", "", False),
    ("pytest tests/billing", "E   ImportError: cannot import name 'Retry'\n1 failed in 0.2s", True),
    ("cat notes/todo.txt", "cat: notes/todo.txt: No such file or directory", True),
    ("deploy", "bash: deploy: command not found", True),
    ("make docs", "make: *** [Makefile:12: docs] Error 127", True),
    ("git log", "fatal: not a git repository (or any of the parent directories): .git", True),
    ("./check.sh", "FAILED tests/test_x.py::test_y - AssertionError: assert 1 == 2", True),
    ("mypy src", "src/a.py:3: error: Incompatible types in assignment", True),
    ("python tool.py", "Traceback (most recent call last):\n  File \"tool.py\", line 3\n"
     "KeyError: 'name'", True),
    ("npm test", "npm ERR! code ELIFECYCLE", True),
    ("python3 -m pyflakes app.py", "/usr/bin/python3: No module named pyflakes", True),
]
CHECK = [
    ("git diff --quiet", "", False),
    ("diff -q a.txt b.txt", "Files a.txt and b.txt differ", False),
    ("[ -d dist ]", "", False),
    ("diff -u want got", "--- want\n+++ got\n@@ -2 +2 @@\n-Error: timeout after 5s\n"
     "+Error: timeout after 6s\n", False),
    ("cargo build", "error[E0425]: cannot find value `conf` in this scope", True),
    ("node server.js", "Error: Cannot find module 'express'", True),
    ("psql -c 'select 1'", "psql: error: connection to server on socket failed", True),
    ("curl -sf localhost:9000/health", "curl: (7) Failed to connect to localhost port 9000", True),
    ("go test ./...", "--- FAIL: TestSplit (0.00s)\n    split_test.go:12: got 333, want 334\nFAIL",
     True),
    ("./run.sh", "./run.sh: line 4: ./bin/tool: Permission denied", True),
]


@pytest.mark.parametrize(("command", "output", "worth"), TUNING + CHECK)
def test_a_failure_is_stored_when_its_output_shows_an_error(command: str, output: str,
                                                            worth: bool) -> None:
    assert shows_error(output) is worth, command
