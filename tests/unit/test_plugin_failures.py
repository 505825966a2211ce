"""Which failed runs the plugin stores as mistakes, and the line each headline quotes
(kg_brain/surfaces/plugin_runs.py judge): those whose output shows an error or that were killed,
not an exit status alone. The word rule was chosen on TUNING; CHECK was written after it was fixed
and never used to change it. The other tests hold strings of their own for each rule."""

from __future__ import annotations

import pytest

from kg_brain.surfaces.plugin_runs import SCAN_LIMIT, judge

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
    assert judge(command, 1, output).mistake is worth, command


@pytest.mark.parametrize(("command", "output"), [
    ("terraform plan -detailed-exitcode", '  ~ on_error  = "retry" -> "drop"\n'
     '  + log_file  = "errors.log"\n  + dlq       = "orders-failures"\n'
     'Plan: 0 to add, 1 to change, 0 to destroy.'),
    ("git grep -n on_error", "src/errors/map.py:3:on_error = None"),
])
def test_an_error_word_inside_a_name_or_a_path_is_no_error(command: str, output: str) -> None:
    assert not judge(command, 1, output).mistake


@pytest.mark.parametrize(("command", "line"), [
    ("mv a.txt archive/", "mv: impossible de déplacer 'a.txt' vers 'archive/': Aucun fichier"),
    ("./build.sh release", "./build.sh: Zeile 7: Syntaxfehler beim unerwarteten Symbol"),
    ("make dist", "make: *** Keine Regel, um „dist“ zu erstellen.  Schluss."),
])
def test_a_diagnostic_under_the_name_of_what_the_command_runs_is_an_error(command: str,
                                                                          line: str) -> None:
    verdict = judge(command, 2, f"working\n{line}\n")
    assert verdict.mistake and verdict.headline == line


@pytest.mark.parametrize(("status", "output", "headline"), [
    (137, "loading 4000000 rows", "killed by SIGKILL (exit 137)"),
    (139, "", "killed by SIGSEGV (exit 139)"),
    (124, "step 1\nstep 2", "timed out (exit 124)"),
    (134, "Aborted (core dumped)", "Aborted (core dumped)"),
])
def test_a_killed_run_is_a_mistake_whatever_it_printed(status: int, output: str,
                                                       headline: str) -> None:
    verdict = judge("node import.js", status, output)
    assert verdict.mistake and verdict.headline == headline


@pytest.mark.parametrize(("status", "output"), [
    (130, "serving on :8000\n^CTraceback (most recent call last):\n  File \"app.py\", line 9\n"
     "KeyboardInterrupt"),
    (141, "BrokenPipeError: [Errno 32] Broken pipe"),
])
def test_a_run_interrupted_or_whose_reader_left_is_no_mistake(status: int, output: str) -> None:
    assert not judge("python app.py", status, output).mistake


@pytest.mark.parametrize(("output", "headline"), [
    # a typed exception before the runner's summary of it
    ("lib/tax.py:12: in rate\nE   ZeroDivisionError: division by zero\nFound 1 error\n"
     "ERROR lib/tax.py\n=== 1 error in 0.1s ===", "E   ZeroDivisionError: division by zero"),
    # a compiler's diagnostic, not its note, its tally or the build tool relaying its status
    ("lib/q.c:9:3: error: 'head' undeclared\nlib/q.c:9:3: note: reported only once\n"
     "2 errors generated.\nninja: build stopped: subcommand failed.\nexit status 1",
     "lib/q.c:9:3: error: 'head' undeclared"),
    # a linter's located findings over its count
    ("app/x.py:4:1: W291 trailing whitespace\napp/y.py:8:9: B006 mutable default\n"
     "Found 2 errors.", "app/y.py:8:9: B006 mutable default"),
    # a timestamp is not a count of errors; advice is not the error
    ("10:01:02.331 ERROR: disk quota exceeded on /data\n"
     "For details see the error log: /tmp/run.log",
     "10:01:02.331 ERROR: disk quota exceeded on /data"),
    # a runner's own error word alone before a path says nothing; the test's finding at its
    # location says what failed
    ("--- FAIL: TestMerge (0.00s)\n    merge_test.go:7: got 2 want 3\nFAIL\n"
     "FAIL\tgithub.com/x/merge\t0.01s", "merge_test.go:7: got 2 want 3"),
    ("--- FAIL: TestMerge (0.00s)\nFAIL\nFAIL\tgithub.com/x/merge\t0.01s",
     "--- FAIL: TestMerge (0.00s)"),
])
def test_the_headline_is_the_most_telling_error_line(output: str, headline: str) -> None:
    assert judge("run", 1, output).headline == headline


def test_colour_codes_are_no_part_of_a_line() -> None:
    output = "\x1b[1m\x1b[31mE   ValueError: bad month 13\x1b[0m\n\x1b[31m1 failed\x1b[0m"
    assert judge("pytest", 1, output).headline == "E   ValueError: bad month 13"


def test_an_error_far_from_the_end_of_a_long_output_is_found() -> None:
    noise = "".join(f"copied asset {i}.png\n" for i in range(600))  # 12,000 characters
    output = f"build: Error: Can't resolve './theme'\n{noise}done in 4s"
    assert 10_000 < len(output) < SCAN_LIMIT
    verdict = judge("npm run build", 1, output)
    assert verdict.mistake and verdict.headline == "build: Error: Can't resolve './theme'"


@pytest.mark.parametrize(("command", "output", "headline"), [
    # a formatter in check mode lists what it would change
    ("stylua --check lua/", "Checking lua/...\nlua/init.lua\nlua/keys.lua\n"
     "2 files are not formatted according to the style rules\n"
     "Run stylua without --check to fix them", "2 files are not formatted according to the "
     "style rules"),
    # a dependency checker's finding, its table and its advice
    ("cargo audit", "Scanning Cargo.lock for vulnerabilities\nCrate    Version  Id\n"
     "smallvec 0.6.9    RUSTSEC-2019-0009\nsmallvec is affected by a double free in the grow path\n"
     "To fix, upgrade to smallvec 0.6.10\ncargo audit fix", "smallvec is affected by a double "
     "free in the grow path"),
    ("opa check --strict policies/", "policies/authz.rego", "policies/authz.rego"),
])
def test_a_check_that_fails_in_plain_words_is_a_mistake(command: str, output: str,
                                                        headline: str) -> None:
    verdict = judge(command, 1, output)
    assert verdict.mistake and verdict.headline == headline


def test_a_check_that_printed_nothing_says_nothing() -> None:
    assert not judge("ktlint --check", 1, "").mistake


@pytest.mark.parametrize(("command", "status", "output"), [
    ("git rev-parse --verify --quiet topic/old", 1, ""),
    ("git rev-parse --verify v9^{commit}", 128, "fatal: Needed a single revision"),
    ("git cat-file -e 4b825dc6", 128, "fatal: Not a valid object name 4b825dc6"),
    ("git merge-base --is-ancestor topic main", 1, ""),
    ("id -un builder", 1, "id: 'builder': no such user"),
])
def test_a_question_answered_no_by_its_status_is_no_mistake(command: str, status: int,
                                                            output: str) -> None:
    assert not judge(command, status, output).mistake


def test_a_question_that_goes_wrong_otherwise_is_judged_by_its_output() -> None:
    output = "error: object file .git/objects/4b/825d is empty\nfatal: loose object is corrupt"
    assert judge("git cat-file -e 4b825dc6", 128, output).mistake
    assert judge("git rev-parse --verify v9", 2, "fatal: Needed a single revision").mistake


@pytest.mark.parametrize(("output", "mistake"), [
    ("internal/ring/ring.go:14:6: unreachable code", True),  # a finding at a location
    ("Sources/App/View.swift(8,3): warning: unused variable 'frame'", True),
    ("app/main.py:3: note: by default the bodies of untyped functions are not checked", False),
    ("lib/app/worker.ex:40: (module)", False),  # a stack frame, no message
])
def test_a_finding_at_a_location_is_an_error_and_a_remark_is_not(output: str,
                                                                  mistake: bool) -> None:
    assert judge("vetter ./...", 1, output).mistake is mistake


@pytest.mark.parametrize("line", ["queue never drained, gave up after 40 tries",
                                  "broker did not answer within 30s",
                                  "still waiting on replica lag; giving up"])
def test_a_script_giving_up_in_plain_words_is_a_mistake(line: str) -> None:
    verdict = judge("./await-broker.sh", 1, f"attempt 1\nattempt 2\n{line}")
    assert verdict.mistake and verdict.headline == line


@pytest.mark.parametrize(("output", "headline"), [
    # a step's relayed failure after the error it relays
    ("compiling 12 modules\nerror: linking failed: undefined symbol _vec_push\n"
     "error: build failed", "error: linking failed: undefined symbol _vec_push"),
    ("  Bundling...failed\nERROR: (tool.deploy) bucket quota reached\nRelease failed",
     "ERROR: (tool.deploy) bucket quota reached"),
    # an exit code relayed by the tool after the error that caused it
    ("scp: /srv/www/a.css: Permission denied\nsync error: partial transfer (code 23) at io.c(9)",
     "scp: /srv/www/a.css: Permission denied"),
    # a Java compiler's location in brackets, over the build tool's pointer to its help page
    ("[ERROR] /w/src/main/java/Shop.java:[12,9] cannot find symbol\n[ERROR] -> [Help 1]",
     "[ERROR] /w/src/main/java/Shop.java:[12,9] cannot find symbol"),
    # a line that ends introducing the next says it with the next
    ("ERROR: (cli.buckets.list) Some requests did not succeed:\n - Missing 'storage.list' right",
     "ERROR: (cli.buckets.list) Some requests did not succeed: - Missing 'storage.list' right"),
])
def test_the_headline_is_the_error_not_its_relay(output: str, headline: str) -> None:
    assert judge("run", 1, output).headline == headline


@pytest.mark.parametrize(("command", "status", "output"), [
    # a plan with changes whose content holds error words
    ("tofu plan -detailed-exitcode", 2, '  + resource "aws_sns_topic" "alerts" {\n'
     '      + display_name = "when a nightly job failed"\n    }\n'
     'Plan: 1 to add, 0 to change, 0 to destroy.'),
    ("terraform -chdir=live plan -detailed-exitcode", 2, "  ~ on_failure = \"abort\" -> \"retry\""),
    ("helm diff upgrade web ./chart --detailed-exitcode", 2,
     "default, web, ConfigMap (v1) has changed:\n-  LOG: error\n+  LOG: warn"),
    ("git -C lib diff --quiet", 1, ""),
    ("cmp fixtures/a.bin out/a.bin", 1, "fixtures/a.bin out/a.bin differ: char 9, line 1"),
    ("gh pr checks 31", 8, "Some checks are still pending\n1 failing, 2 pending checks"),
    ("robocopy.exe build D:\\\\www /MIR", 3, "   Files :   12   4   8   0   0   1\n"
     "               Total    Copied   Skipped  Mismatch    FAILED    Extras"),
])
def test_a_status_that_means_a_difference_is_no_mistake(command: str, status: int,
                                                        output: str) -> None:
    assert not judge(command, status, output).mistake


@pytest.mark.parametrize(("command", "status", "output"), [
    ("tofu plan -detailed-exitcode", 1, "Error: Unsupported block type"),
    ("cmp fixtures/a.bin out/a.bin", 2, "cmp: out/a.bin: No such file or directory"),
    ("robocopy.exe build D:\\\\www /MIR", 16, "ERROR : Invalid Parameter #3 : \"/MIRR\""),
])
def test_the_error_status_of_such_a_tool_is_judged_by_its_output(command: str, status: int,
                                                                 output: str) -> None:
    assert judge(command, status, output).mistake


def test_a_diffs_context_lines_are_the_files_text() -> None:
    output = ("diff -u -N /tmp/LIVE-1/v1.Service.web /tmp/MERGED-2/v1.Service.web\n"
              "--- /tmp/LIVE-1/v1.Service.web\n+++ /tmp/MERGED-2/v1.Service.web\n@@ -4,3 +4,3 @@\n"
              "   errorPage: /500.html\n-  port: 80\n+  port: 8080\n")
    assert not judge("kubectl diff -f web.yaml", 1, output).mistake
    assert judge("kubectl diff -f web.yaml", 1, 'error: the path "web.yaml" does not exist').mistake


@pytest.mark.parametrize(("command", "output"), [
    ("timeout 30 ng serve", "** Angular Live Development Server is listening on localhost:4200 **"
     "\n✔ Compiled successfully."),
    ("timeout 20 dotnet watch run", "dotnet watch 🚀 Started\nNow listening on: http://localhost:5000"),
    ("timeout 40 ./bin/devd", "serving ./public on :8000\nPress Ctrl-C to stop"),
    ("timeout 15 cargo watch -x clippy", "[Running 'cargo clippy']\n"
     "    Finished dev profile in 0.4s\n[Finished running. Exit status: 0]"),
])
def test_timeout_stopping_a_program_that_runs_until_stopped_is_no_mistake(command: str,
                                                                          output: str) -> None:
    assert not judge(command, 124, output).mistake


def test_a_program_that_runs_until_stopped_is_judged_by_what_it_showed() -> None:
    output = ("[09:00:01] Starting compilation in watch mode...\n"
              "src/a.ts(3,7): error TS2304: Cannot find name 'qux'.\n"
              "[09:00:03] Found 1 error. Watching for file changes.")
    verdict = judge("timeout 25 npx tsc --watch --noEmit", 124, output)
    assert verdict.mistake
    assert verdict.headline == "src/a.ts(3,7): error TS2304: Cannot find name 'qux'."
    hung = judge("timeout 30 ./scripts/smoke.sh", 124, "smoke: waiting for api")
    assert hung.mistake and hung.headline == "timed out (exit 124)"


def test_a_run_asked_to_stop_from_outside_is_no_mistake() -> None:
    output = "worker: draining queue\nnpm error signal SIGTERM\nnpm error command failed"
    assert not judge("npm run worker", 143, output).mistake


@pytest.mark.parametrize(("command", "output", "headline"), [
    ("gcc -c util.c", "util.c: В функции «main»:\n"
     "util.c:7:2: ошибка: неизвестное имя типа «sizet»\nutil.c:7:2: замечание: reported once",
     "util.c:7:2: ошибка: неизвестное имя типа «sizet»"),
    ("javac Main.java", "Main.java:5: 错误: 找不到符号\n        Lst<String> a;\n1 个错误",
     "Main.java:5: 错误: 找不到符号"),
    ("clang -c net.c", "net.c:3:1: erreur: type inconnu « socklen »\nnet.c:3:1: remarque: ici",
     "net.c:3:1: erreur: type inconnu « socklen »"),
    ("apt-get install -y libfoo-dev", "Paketlisten werden gelesen… Fertig\n"
     "E: Paket libfoo-dev kann nicht gefunden werden.", "E: Paket libfoo-dev kann nicht gefunden "
     "werden."),
])
def test_an_error_in_another_locale_is_an_error_and_heads_over_its_note(command: str, output: str,
                                                                        headline: str) -> None:
    verdict = judge(command, 1, output)
    assert verdict.mistake and verdict.headline == headline


@pytest.mark.parametrize(("command", "output", "headline"), [
    ("cmd.exe /c deploy.cmd", "'deploy.cmd' is not recognized as an internal or external command,"
     "\noperable program or batch file.", "'deploy.cmd' is not recognized as an internal or "
     "external command,"),
    ("cl.exe /W4 net.c", "net.c\n"
     "C:\\build\\src\\net.c(12): error C2143: syntax error: missing ';'\n"
     "C:\\build\\src\\net.c(30): warning C4244: conversion from 'double' to 'int'",
     "C:\\build\\src\\net.c(12): error C2143: syntax error: missing ';'"),
    ("pwsh -File build.ps1", "Copy-Item : Access to the path 'C:\\out\\app.dll' is denied.\n"
     "At C:\\src\\build.ps1:9 char:1\n+ Copy-Item $dll C:\\out\n"
     "    + CategoryInfo          : PermissionDenied: (C:\\out\\app.dll:FileInfo) [Copy-Item], "
     "UnauthorizedAccessException", "Copy-Item : Access to the path 'C:\\out\\app.dll' is denied."),
])
def test_windows_programs_errors_and_paths(command: str, output: str, headline: str) -> None:
    verdict = judge(command, 1, output)
    assert verdict.mistake and verdict.headline == headline


@pytest.mark.parametrize(("output", "headline"), [
    # an assertion's values over the runner's tally and its watch-mode keys
    ("  ● cart › applies coupon\n\n    Expected: 45\n    Received: 50\n\n"
     "Tests:       1 failed, 3 total\n › Press f to run only failed tests.",
     "Expected: 45 Received: 50"),
    ("  Failed Billing.Tests.Round [3 ms]\n  Expected: 2.50\n  Actual:   2.49", "Expected: 2.50 "
     "Actual:   2.49"),
    # the error over a pointer to a web page about it
    ('thrown: "Exceeded timeout of 2000 ms for a hook.\nSee https://example.org/docs/timeouts for '
     'an error like this."', 'thrown: "Exceeded timeout of 2000 ms for a hook.'),
    # the error over sentences about it told after it
    (" ERR_PNPM_META_FETCH_FAIL  GET https://npm.example.org/left-pad: Unable to reach host\n\n"
     "This error happened while installing the dependencies of app@1.0.0\n"
     "The error appears to come from your network settings.",
     "ERR_PNPM_META_FETCH_FAIL  GET https://npm.example.org/left-pad: Unable to reach host"),
    # a finding at a location and column with no colon after it, over the tool's summary
    ("lib/x.ts:4:1 lint/suspicious/noDoubleEquals ━━━━━━━━\n\n  ✖ Use === instead of ==\n\n"
     "  ✖ Some errors were emitted while running checks.",
     "lib/x.ts:4:1 lint/suspicious/noDoubleEquals ━━━━━━━━"),
])
def test_the_headline_passes_over_tallies_and_advice(output: str, headline: str) -> None:
    assert judge("run", 1, output).headline == headline


@pytest.mark.parametrize(("command", "status", "output"), [
    ("task --status bundle", 1, 'task: Task "bundle" is not up-to-date\n'),
    ("make --question site/index.html", 1, ""),
    ("yarn outdated", 1, "Package Current Wanted Latest\nlodash  4.17.20 4.17.21 4.17.21\n"),
    ("git diff --exit-code --stat main", 1, " lib/error_codes.rb | 2 +-\n"),
    ("systemctl --user is-active mailer", 3, "failed\n"),
    ("pg_isready -h db.local", 2, "db.local:5432 - no response\n"),
])
def test_a_status_query_answered_by_its_status_is_no_mistake(command: str, status: int,
                                                               output: str) -> None:
    assert not judge(command, status, output).mistake


def test_a_status_query_that_says_an_error_in_words_is_a_mistake() -> None:
    output = "task: Failed to parse Taskfile.yml: yaml: line 4: did not find expected key\n"
    assert judge("task --status bundle", 1, output).mistake
    assert judge("make -q site", 2, "make: *** No rule to make target 'site'.  Stop.\n").mistake


@pytest.mark.parametrize(("command", "status", "output"), [
    ("timeout 30 ./bin/api", 124, "config read\napi ready at http://127.0.0.1:9090\n"),
    ("timeout 20 npx nodemon api.js", 124, "[nodemon] watching extensions: js,json\n"),
    ("timeout -s KILL 15 uvicorn api:app --reload", 137, "INFO: Started reloader process\n"),
])
def test_a_server_or_watcher_stopped_by_timeout_is_no_mistake(command: str, status: int,
                                                               output: str) -> None:
    assert not judge(command, status, output).mistake


def test_a_program_killed_by_timeout_that_does_not_serve_is_a_mistake() -> None:
    assert judge("timeout -s KILL 5 ./bin/import --once", 137, "import: row 4000\n").mistake
    assert judge("timeout 60 ./bin/import", 124, "import: row 4000\n").mistake


def test_a_tally_of_none_is_no_error() -> None:
    output = "[10:01:02] Found 0 errors. Watching for file changes.\nno failures so far\n"
    assert not judge("timeout 9 npx tsc -b -w", 124, output).mistake


@pytest.mark.parametrize(("status", "output", "headline"), [
    (126, "No version is set for command terraform\nConsider adding one to .tool-versions\n",
     "No version is set for command terraform"),
    (127, "", "could not run (exit 127)"),
])
def test_a_command_the_shell_could_not_run_is_a_mistake(status: int, output: str,
                                                         headline: str) -> None:
    verdict = judge("terraform init", status, output)
    assert verdict.mistake and verdict.headline == headline


def test_a_severity_tag_above_error_shows_an_error() -> None:
    output = ("[ALERT] (91) : parsing [lb.cfg:8] : unknown keyword 'bind_adress'\n"
              "[ALERT] (91) : Fatal errors found in configuration.\n")
    verdict = judge("haproxy -c -f lb.cfg", 1, output)
    assert verdict.mistake and "bind_adress" in verdict.headline
    assert judge("apache2ctl -t", 1, "httpd: [crit] bad user name wwwdata\n").mistake


def test_a_relayed_exit_status_heads_with_what_the_program_said_above_it() -> None:
    verdict = judge("go run ./cmd/feed", 1, "reading feed.xml\nunexpected EOF in item 7\n"
                    "exit status 1\n")
    assert verdict.mistake and verdict.headline == "unexpected EOF in item 7"
    assert not judge("kubectl exec pod/a -- test -d /data", 1,
                     "command terminated with exit code 1\n").mistake


@pytest.mark.parametrize(("output", "headline"), [
    # a wrapper's relayed failure and tally below the tool's own sentence
    ("> nx run shop:e2e\n  Timeout waiting for the cart badge to show 2\nSpecs: 1 failed, 3 total\n"
     " NX   Running target e2e for project shop failed\n",
     "Timeout waiting for the cart badge to show 2"),
    ("mix test\n  left:  3\n  right: 4\n  the stock count is off by one\n"
     "** (Mix) mix test failed with exit code 2\n", "the stock count is off by one"),
])
def test_the_sentence_above_a_wrappers_summary_heads_it(output: str, headline: str) -> None:
    assert judge("wrap run", 1, output).headline == headline


def test_a_wrappers_line_prefix_and_context_lines_are_set_aside() -> None:
    output = ("api:lint: > eslint .\napi:lint: src/db.ts:4:1  error  Missing return type\n"
              "api:lint: ELIFECYCLE  Command failed with exit code 1.\n"
              "npm ERR!   in workspace: api@2.0.0\n")
    assert "Missing return type" in judge("npx turbo run lint", 1, output).headline


@pytest.mark.parametrize(("command", "output", "headline"), [
    ("prettier --list-different .", "web/app.tsx\n", "web/app.tsx"),
    ("ruff format --diff", "--- lib/io.py\n+++ lib/io.py\n@@ -1 +1 @@\n-x=1\n+x = 1\n",
     "would change lib/io.py"),
])
def test_a_formatter_listing_what_it_would_change_is_a_failed_check(command: str, output: str,
                                                                    headline: str) -> None:
    verdict = judge(command, 1, output)
    assert verdict.mistake and verdict.headline == headline
