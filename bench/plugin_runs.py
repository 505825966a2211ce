"""Which bash runs the OpenCode plugin stores as mistakes, their headlines, and which it takes for
one command, over labelled sets.

    python -m bench.plugin_runs [--split tune] [--round 1] [--out docs/bench/plugin_runs-tune.json]

bench/data/plugin_runs/{tune,check}.jsonl: 215 bash runs written for this bench across stacks
(npm, pnpm, yarn, jest, vitest, tsc, eslint, pytest, mypy, ruff, pip, go, cargo, terraform,
kubectl, helm, docker, make, git, grep, rg, find, test, diff, cmp, curl, signals and timeouts,
flaky runs, long outputs, colour codes, other languages), each with its command, exit status,
output, whether it is a mistake worth storing, and for a mistake the lines its headline may quote
(any one of them, as a substring). Split once into tune (108) and check (107) by
`random.Random(5).shuffle` before any scoring; the check half is the lead's.

Each run goes as the plugin sends it (kg_brain/surfaces/opencode/kg-brain.js: a failure only for
a non-zero numeric exit status, the output's last 16,000 characters) to the endpoint's judgment
(kg_brain/surfaces/plugin_runs.py judge): stored or not, and the headline its title quotes.
No service or database is involved: the judgment is the endpoint's own function.

bench/data/plugin_pairs/{tune,check}.jsonl: 71 pairs of commands (36 tune, 35 check, the same
shuffle), each labelled the same command or not for the plugin's fixes and holds (a pass of the
second after a failure of the first is its fix): wrappers, a package manager's `run`, options
that only change the output's look, targets, subcommands, option values. Scored by the plugin's
own `commandKey` (kg_brain/surfaces/opencode/kg-brain-commands.mjs) under Node.

`--round 2` reads round 2 (bench/data/plugin_runs_r2 and plugin_pairs_r2): 186 runs of stacks
and situations round 1 lacks (bazel, gradle, maven, dotnet, swift, deno, bun, uv, poetry,
pre-commit, ansible, packer, pulumi, cloud CLIs, database clients, systemd, docker compose, kind,
minikube, exit statuses with meanings, rsync, git bisect, `set -e` scripts, pipefail, other
languages, long outputs) and 53 pairs, split once into tune (93 runs, 27 pairs) and check by
`random.Random(6).shuffle` before any scoring.

`--round 3` reads round 3 (bench/data/plugin_runs_r3 and plugin_pairs_r3): 165 runs of situations
neither round has (commands behind wrappers: npx, pnpm dlx, bunx, make/just/task targets, nx,
turbo, lerna, tox, nox, cargo xtask, mise and asdf, docker compose run, kubectl exec; runs killed
or interrupted: 124, 130, 134, 137, 139, 143; watch modes and servers stopped by the agent; flaky
tests retried; exit statuses that mean "different" or "changes present": git diff --exit-code,
cmp, terraform/tofu plan -detailed-exitcode, helm diff, kubectl diff, pulumi preview
--expect-no-changes, npm outdated, gh pr checks, robocopy; colour codes and progress bars; other
locales; Windows paths under WSL; long outputs cut in the middle) and 56 pairs (environment
variables, a `cd` against a tool's own directory option, options that do not change what is
checked, wrappers), split once into tune (83 runs, 28 pairs) and check by
`random.Random(7).shuffle` before any scoring.

`--round 4` reads round 4 (bench/data/plugin_runs_r4 and plugin_pairs_r4): 46 situations of runs
and 30 of pairs, each written three times in other tools or stacks (frames): watchers and
development servers stopped by `timeout`, status queries (not up to date, outdated, changes
present, a service's state), shims' 126 and 127, configuration validators, formatters listing
files, errors above a wrapper's summary (make, just, task, tox, nox, turbo, nx, lerna, docker
compose run, gradle, maven, sbt, bundlers, helm plugins, npm scripts, pre-commit). A
`random.Random(8).shuffle` of each situation's three frames, before any scoring, put one (frame C)
in the check half and two (frames A and B, the `frame` field) in the tune half: 92 runs and 60
pairs tune, 46 and 30 check. `--frame A` or `--frame B` scores one tune frame: rules chosen on A
are read on B to tell how a rule carries to a tool it was not written on.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

from bench.common import emit_result, record_check_run
from kg_brain.surfaces.plugin import COMMANDS
from kg_brain.surfaces.plugin_runs import SCAN_LIMIT, judge

DATA = Path(__file__).resolve().parent / "data"
WORKSPACE = "/home/dev/app"
KEYS = """
const { commandKey } = await import(process.argv[1])
const [commands, directory] = JSON.parse(process.argv[2])
process.stdout.write(JSON.stringify(commands.map((c) => commandKey(c, directory))))
"""


def score(runs: list[dict[str, Any]]) -> dict[str, Any]:
    counts: Counter[str] = Counter()
    wrong: list[dict[str, Any]] = []
    weak: list[dict[str, Any]] = []
    for run in runs:
        sent = isinstance(run["exit"], int) and run["exit"] != 0
        verdict = judge(run["command"], run["exit"], run["output"][-SCAN_LIMIT:])
        stored = sent and verdict.mistake
        counts[("true" if stored == run["mistake"] else "false") +
               ("_positive" if stored else "_negative")] += 1
        if stored != run["mistake"]:
            wrong.append({"id": run["id"], "command": run["command"], "exit": run["exit"],
                          "labelled_mistake": run["mistake"], "headline": verdict.headline})
        elif stored and not any(line in verdict.headline for line in run["headline"]):
            weak.append({"id": run["id"], "command": run["command"],
                         "headline": verdict.headline, "expected_any_of": run["headline"]})
    stored_right = counts["true_positive"]
    return {
        "runs": len(runs), "mistakes": sum(r["mistake"] for r in runs),
        "decisions_right": counts["true_positive"] + counts["true_negative"],
        "decision_accuracy": round((counts["true_positive"] + counts["true_negative"]) /
                                   len(runs), 4),
        "stored_not_mistakes": counts["false_positive"],
        "mistakes_missed": counts["false_negative"],
        "headlines_right": stored_right - len(weak),
        "headline_accuracy": round((stored_right - len(weak)) / stored_right, 4)
        if stored_right else None,
        "wrong_decisions": wrong, "weak_headlines": weak}


def score_pairs(pairs: list[dict[str, Any]]) -> dict[str, Any]:
    node = shutil.which("node")
    if node is None:
        raise SystemExit("Node.js runs the plugin's commandKey: install it")
    commands = [c for pair in pairs for c in (pair["first"], pair["second"])]
    keys = json.loads(subprocess.run(
        [node, "--input-type=module", "-e", KEYS, COMMANDS.as_uri(),
         json.dumps([commands, WORKSPACE])], capture_output=True, text=True, timeout=60,
        check=True).stdout)
    wrong = [{"id": p["id"], "first": p["first"], "second": p["second"], "labelled_same": p["same"]}
             for i, p in enumerate(pairs) if (keys[2 * i] == keys[2 * i + 1]) != p["same"]]
    return {"pairs": len(pairs), "same": sum(p["same"] for p in pairs),
            "right": len(pairs) - len(wrong),
            "split_apart": sum(w["labelled_same"] for w in wrong),
            "joined": sum(not w["labelled_same"] for w in wrong), "wrong": wrong}


def read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("tune", "check"), default="tune")
    parser.add_argument("--round", type=int, choices=(1, 2, 3, 4), default=1,
                        help="1: plugin_runs, plugin_pairs; N > 1: plugin_runs_rN, plugin_pairs_rN")
    parser.add_argument("--frame", choices=("A", "B"),
                        help="round 4's tune half: score one frame of each situation")
    parser.add_argument("--out", type=Path, default=Path("plugin_runs.json"))
    args = parser.parse_args(argv)
    suffix = "" if args.round == 1 else f"_r{args.round}"
    runs, pairs = (DATA / f"{name}{suffix}" / f"{args.split}.jsonl"
                   for name in ("plugin_runs", "plugin_pairs"))
    if args.split == "check":
        record_check_run(f"plugin_runs{suffix}", "check",
                         [str(p.relative_to(DATA.parent.parent)) for p in (runs, pairs)], args.out)
    if args.frame and (args.round < 4 or args.split != "tune"):
        parser.error("--frame reads round 4's tune half")
    chosen = [[row for row in read(path) if args.frame in (None, row.get("frame"))]
              for path in (runs, pairs)]
    emit_result({"split": args.split, "round": args.round,
                 **({"frame": args.frame} if args.frame else {}),
                 **score(chosen[0]), "commands": score_pairs(chosen[1])}, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
