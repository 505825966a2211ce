"""Which bash runs the OpenCode plugin treats as the same or an equivalent command (`commandKey`
of kg_brain/surfaces/opencode/kg-brain-commands.mjs, run under Node): quoting, variables and
wrappers, a `cd` into the workspace, `./`, redirections, viewer pipes, option order and options a
program documents as changing only how it runs or shows do not tell runs apart, and a program's
own option to run elsewhere is a `cd` there; another subcommand, target, option value, a `cd`
elsewhere or an `||` does. The commands are this file's own."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from kg_brain.surfaces.plugin import COMMANDS

WORKSPACE = "/home/dev/shop"
DRIVER = """
const { commandKey } = await import(process.argv[1])
const [commands, directory] = JSON.parse(process.argv[2])
process.stdout.write(JSON.stringify(commands.map((c) => commandKey(c, directory))))
"""
EQUIVALENT = [
    ["pytest tests/a", "pytest  tests/a ", "pytest 'tests/a'", 'pytest "tests/a"',
     "PYTHONPATH=src pytest tests/a", "env CI=1 DEBUG=0 pytest tests/a", "time pytest tests/a",
     "python -m pytest tests/a", "python3 -m pytest ./tests/a/", "uv run pytest tests/a",
     f"cd {WORKSPACE} && pytest tests/a", "cd . && pytest tests/a", f"pytest {WORKSPACE}/tests/a",
     "pytest tests/a 2>&1", "pytest tests/a > log.txt 2>/dev/null", "pytest tests/a | tail -n 30",
     "pytest tests/a 2>&1 | tee out.log | head -50"],
    ["pytest -x -q tests/a", "pytest -q -x tests/a", "pytest tests/a -x -q"],
    ["./run.sh build", "run.sh build", "bash_var=1 ./run.sh build"],
    ["echo 'a b'", 'echo "a b"', "echo a\\ b"],
    ["make lint && make test", "make lint; make test", "make lint\nmake test"],
    ["npm ci", "npx npm ci", "sudo npm ci"],
    # wrappers with options and arguments of their own
    ["bats test/", "timeout --signal=KILL 5m bats test/", "timeout -k 10 90 bats test/",
     "nice -n 5 bats test/", "env -u HOME -i LANG=C bats test/", "sudo -u ci bats test/"],
    ["rake spec", "bundle exec rake spec", "pipenv run rake spec", "bunx rake spec",
     "pnpm exec rake spec", "npm exec -- rake spec"],
    # a package manager's `run` where the script runs without it too
    ["pnpm typecheck", "pnpm run typecheck"], ["yarn typecheck", "yarn run typecheck"],
    ["npm start", "npm run start"],
    # options that only change how output looks
    ["ruff check app", "ruff check --no-color app", "ruff check --color=always app",
     "ruff check --quiet app"],
    ["./gradlew lint", "./gradlew lint --stacktrace", "./gradlew --info lint"],
    ["mvn verify", "mvn --batch-mode verify", "mvn verify --no-transfer-progress"],
    ["make all", "make -j8 all", "make all --jobs=2"],
    # a shell running a script file with its options
    ["./tools/seed.sh demo", "bash tools/seed.sh demo", "sh -x ./tools/seed.sh demo",
     "bash -o pipefail tools/seed.sh demo"],
    ["bun lint", "bun run lint"],
    # a program's own option to run in another directory is a `cd` there; a subshell around it all
    ["cd api && make test", "make -C api test", "make --directory=api test",
     "(cd api && make test)", f"cd {WORKSPACE}/api && make test"],
    ["cd envs/dev && terraform validate", "terraform -chdir=envs/dev validate"],
    ["cd pkg/core && cargo build", "cargo build --manifest-path pkg/core/Cargo.toml"],
    ["cd site && pnpm lint", "pnpm --dir site lint", "pnpm -C site run lint"],
    ["cd sub && git log", "git -C sub log", "git -C sub log | head -5"],
    ["npm test", "npm --prefix . test", f"npm --prefix {WORKSPACE} test"],
    # more wrappers
    ["stylelint src", "pnpm dlx stylelint src", "yarn dlx stylelint src",
     "mise exec node@22 -- stylelint src", "mise x -- stylelint src", "asdf exec stylelint src"],
    # nx's `run project:target`, turbo's optional `run`
    ["nx lint web", "nx run web:lint", "npx nx run web:lint"],
    ["nx build web --configuration=production", "nx run web:build:production"],
    ["turbo typecheck", "turbo run typecheck"],
    # options a program documents as changing how it runs or shows, not what it checks
    ["pytest tests/unit", "pytest -v -s tests/unit", "pytest -n 8 --reruns 3 tests/unit",
     "pytest -rA -x tests/unit"],
    ["npx jest src", "npx jest --runInBand src", "npx jest -w 2 src"],
    ["cargo test -p io", "cargo test -p io -- --nocapture --test-threads=1"],
    ["go test ./pkg/...", "go test -v -count=1 ./pkg/..."],
    ["make build", "make -k build"], ["mvn verify", "mvn -B -q verify"],
    ["dotnet test", "dotnet test --logger trx -v minimal"],
    ["npx playwright test", "npx playwright test --retries 1 --workers=2"],
    ["pre-commit run --all-files", "pre-commit run -a"], ["nox -s lint", "nox --session lint"],
    ["docker compose run --rm web rake", "docker compose run -T web rake",
     "docker compose run web rake"],
    ["kubectl exec -it db-0 -- psql -c 'select 1'", "kubectl exec db-0 -- psql -c 'select 1'"],
    ["kubectl -n shop exec -it db-0 -- ls", "kubectl -n shop exec db-0 -- ls"],
    ["docker run --rm -it alpine ls -i", "docker run alpine ls -i"],
]
DIFFERENT = [
    "pytest tests/a", "pytest tests/b", "pytest tests/a -k slow", "pytest tests/a -k fast",
    "git push", "git pull", "git push origin main", "git push origin dev",
    "cd sub && pytest tests/a", "cd && pytest tests/a", "echo a b", "echo 'a b'",
    "make test", "make lint && make test", "make lint || make test", "make lint & make test",
    "sort < in.txt", "sort in.txt", "python script.py", "python -m script", "cat notes/todo.txt",
    "cat notes/todo.txt | grep ship", "npm run build", "npm run test",
    "npm build", "pnpm run lint", "pnpm run fmt", "command -v docker", "docker",
    "grep -v TODO notes.md", "grep TODO notes.md", "timeout 5 bats test/a", "bats test/b",
    "bash -c 'tools/seed.sh demo'", "tools/seed.sh demo",
    "bun run test", "bun test", "bun run build", "bun build",
    "make -C web test", "cd api && make test", "git -C sub log | grep fix", "git log | grep fix",
    "pytest -k slow tests/unit", "pytest tests/unit", "nx lint api", "nx lint web", "turbo prune",
    "turbo run prune", "kubectl exec db-1 -- ls", "kubectl -n dev exec db-0 -- ls",
    "go test -race ./pkg/...", "go test ./pkg/...", "cargo test -p io --release",
    "docker run alpine ls", "docker run alpine ls -i", "(cd web && npm ci) && npm test",
    "cd web && npm ci && npm test", "go run ./cmd/tool -v", "go run ./cmd/tool",
]


def keys(commands: list[str], directory: str = WORKSPACE) -> list[str]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed: the plugin runs under OpenCode's JavaScript")
    done = subprocess.run([node, "--input-type=module", "-e", DRIVER, COMMANDS.as_uri(),
                           json.dumps([commands, directory])], capture_output=True, text=True,
                          timeout=60, check=True)
    found: list[str] = json.loads(done.stdout)
    return found


@pytest.mark.parametrize("group", EQUIVALENT, ids=[g[0] for g in EQUIVALENT])
def test_equivalent_runs_share_one_key(group: list[str]) -> None:
    assert len(set(keys(group))) == 1, dict(zip(group, keys(group), strict=True))


def test_other_subcommands_targets_and_values_never_match() -> None:
    found = keys(DIFFERENT)
    assert len(set(found)) == len(DIFFERENT), [c for c, k in zip(DIFFERENT, found, strict=True)
                                               if found.count(k) > 1]


def test_what_cannot_be_read_as_words_is_matched_on_its_text() -> None:
    unreadable = ["cat $(ls)", "echo 'unclosed", "cat <<EOF\nx\nEOF", "echo `date`"]
    found = keys(unreadable + ["cat  $(ls)", "cat $(ls -a)"])
    assert found[:4] == ["cat $(ls)", "echo 'unclosed", "cat <<EOF x EOF", "echo `date`"]
    assert found[4] == found[0] and found[5] != found[0]  # whitespace aside, as written


def test_the_workspace_is_the_sessions_own() -> None:
    here, elsewhere = keys([f"cd {WORKSPACE} && make", "make"]), keys(
        [f"cd {WORKSPACE} && make", "make"], "/home/dev/other")
    assert here[0] == here[1] and elsewhere[0] != elsewhere[1]
