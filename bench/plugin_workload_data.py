"""The plugin workload's script (bench/plugin_workload.py): the workspace's files and the
sessions played in it, each a list of turns (a user message and the tool calls the scripted model
makes for it, bench.plugin_workload's agent)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tests.e2e.scripted_model import Step

BUGGY = "def split(total, n):\n    return [total // n] * n\n"
FIXED = ("def split(total, n):\n    share, left = divmod(total, n)\n"
         "    return [share + (1 if i < left else 0) for i in range(n)]\n")
CHECK = "./check.sh"
FILES = {
    "money.py": BUGGY,
    "check.sh": "#!/bin/sh\npython3 -c \"import money; assert sum(money.split(1000, 3)) == 1000, "
                "'split lost a cent'\"\n",
    "flaky.sh": "#!/bin/sh\nif [ -f .flaky-seen ]; then echo ok; exit 0; fi\ntouch .flaky-seen\n"
                "echo 'error: upstream timed out after 5s' >&2\nexit 1\n",
    "config/dev.ini": "[server]\nport = 8080\n", "config/prod.ini": "[server]\nport = 8443\n",
}
DOCS_MAKEFILE = "html:\n\tmkdir -p _build && echo built > _build/index.html\n"


def bash(command: str) -> Step:
    return Step("bash", {"command": command, "description": "run a command"})


def rewrite(path: Path, text: str) -> list[Step]:
    """The file read, then written with `text` (OpenCode writes over a file it has read)."""
    return [Step("read", {"filePath": str(path)}),
            Step("write", {"filePath": str(path), "content": text})]


@dataclass
class Turn:
    message: str
    steps: list[Step] = field(default_factory=list)


@dataclass
class Session:
    name: str
    turns: list[Turn]
    scripts: dict[str, list[Step]] = field(default_factory=dict)


def workload(ws: Path) -> list[Session]:
    """The sessions in order; each turn's steps are new ones (a continued conversation replays
    the earlier turns' results)."""
    money = ws / "money.py"
    return [
        Session("money-fix", [
            Turn("Run the checks", [bash(CHECK)]),
            Turn("Fix the split so that no cent is lost", [*rewrite(money, FIXED), bash(CHECK)]),
            Turn("/remember Money is split in integer cents, never floats: a float split lost a "
                 "cent on three-way payments."),
            Turn("Look for leftover TODOs", [bash("grep -rn TODO --include=*.py .")])]),
        Session("searches", [
            Turn("Is there a build artifact yet?", [bash("test -f build/app.js")]),
            Turn("Do the two configs differ?", [bash("diff config/dev.ini config/prod.ini")]),
            Turn("Is the tree clean?", [bash("git diff --exit-code")])]),
        Session("regression", [
            Turn("Make split simpler", [*rewrite(money, BUGGY), bash(CHECK)]),
            Turn("Is the staging API up?", [bash("curl -sf http://127.0.0.1:9/health")]),
            Turn("Stop here for today")]),
        Session("held", [
            Turn("Run the checks", [bash(CHECK), bash(CHECK)]),
            Turn("Fix it again", [*rewrite(money, FIXED), bash(CHECK)]),
            Turn("Should money be floats or integer cents? Why?")]),
        Session("subagent", [
            Turn("Have a subagent lint money.py", [Step("task", {
                "description": "lint money.py", "subagent_type": "general",
                "prompt": "SUBAGENT-LINT: lint money.py with pyflakes"})]),
            Turn("Compile it instead", [bash("python3 -m py_compile money.py")]),
            Turn("Note what is left")],
            scripts={"SUBAGENT-LINT": [bash("python3 -m pyflakes money.py")]}),
        Session("flaky", [
            Turn("Run the integration script", [bash("./flaky.sh")]),
            Turn("Run it again", [bash("./flaky.sh")]),
            Turn("Any FIXMEs?", [bash("grep -rn FIXME --include=*.py .")])]),
        Session("decisions", [
            Turn("/remember Invoice PDFs are rendered by weasyprint in the worker queue, never in "
                 "the web process."),
            Turn("Where are the invoice PDFs rendered?"),
            Turn("Run the checks", [bash(CHECK)])]),
        Session("docs", [
            Turn("Build the docs", [bash("make -C docs html")]),
            Turn("Add a docs Makefile and build", [
                Step("write", {"filePath": str(ws / "docs" / "Makefile"),
                               "content": DOCS_MAKEFILE}), bash("make -C docs html")]),
            Turn("What changed?", [bash("git status --short")])]),
        Session("searches-2", [
            Turn("Where is retry_budget set?", [bash("grep -rn retry_budget .")]),
            Turn("Is there a dist folder?", [bash("test -d dist")]),
            Turn("Is a worker running?", [bash("pgrep -f kg-brain-bench-no-such-worker")])]),
        Session("wrap-up", [
            Turn("Run the checks and the docs", [bash(CHECK), bash("make -C docs html")]),
            Turn("How is money split?"),
            Turn("Summarise the state of the project")]),
    ]


SMALL = ("money-fix", "regression", "held", "subagent")
