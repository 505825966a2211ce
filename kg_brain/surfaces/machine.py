"""What `kg-brain wire` keeps on this machine so that the files it writes into a workspace hold
nothing of this machine (no interpreter, no path under this user's home) and can be committed.

Both live in kg-brain's user folder, `$XDG_CONFIG_HOME/kg-brain` (else `~/.config/kg-brain`, where
`config.env` is read from), found by that rule on every machine:
- the launcher `bin/kg-brain`, a shell script running this installation's interpreter; a
  workspace's stdio entry runs it through `sh` (`launched_command`), so the entry is the same on
  every machine;
- the OpenCode plugin's settings for this machine (`opencode-plugin.json`, written by
  kg_brain/surfaces/plugin.py): the service's address, its token file, the command that starts it
  and its log. The plugin reads them by the same rule (kg_brain/surfaces/opencode/kg-brain.js).
Wiring again rewrites both (after the installation moved, say). On a machine where kg-brain was
never wired, the entry fails to start (the client logs it) and the plugin logs one warning.
"""

from __future__ import annotations

import json
import shlex
import sys
from contextlib import suppress
from pathlib import Path
from typing import Any

from kg_brain.base.settings import user_config_file

# the command line's module: what the launcher and the plugin's start command run
COMMAND_MODULE = "kg_brain.surfaces.cli"
LAUNCHER = Path("bin") / "kg-brain"
PLUGIN_SETTINGS = "opencode-plugin.json"
# The launcher by the rule above, in the shell every client can spawn; `$@`: the arguments after
# `sh -c SCRIPT NAME`. `${VAR:-default}` is also what Claude Code expands itself, the same way.
RUN_LAUNCHER = f'exec "${{XDG_CONFIG_HOME:-$HOME/.config}}/kg-brain/{LAUNCHER.as_posix()}" "$@"'


def user_folder() -> Path:
    return user_config_file().parent


def launched_command(args: list[str]) -> list[str]:
    """`kg-brain ARGS` through the launcher: the same list on every machine."""
    return ["sh", "-c", RUN_LAUNCHER, "kg-brain", *args]


def launcher_script() -> str:
    return ("#!/bin/sh\n# Written by `kg-brain wire`: workspace entries run kg-brain through "
            "this file.\n"
            f"exec {shlex.quote(sys.executable)} -m {COMMAND_MODULE} \"$@\"\n")


def start_command() -> list[str]:
    """What the OpenCode plugin runs to start the shared service."""
    return [sys.executable, "-m", COMMAND_MODULE, "service", "start"]


def write_launcher() -> Path:
    """The launcher for this installation's interpreter (replacing an older one)."""
    path = user_folder() / LAUNCHER
    path.parent.mkdir(parents=True, exist_ok=True)
    _replace(path, launcher_script(), 0o755)
    return path


def refresh() -> list[Path]:
    """After an upgrade that moved the command line's module, this machine's files still name
    the old one: rewrite the launcher and the plugin's start command where they run an
    interpreter of this installation (its folder) with another module. Files of another
    installation are left as wired, and a missing file stays missing. Returns the files
    rewritten."""
    rewritten = []
    launcher = user_folder() / LAUNCHER
    with suppress(OSError, ValueError):
        lines = launcher.read_text(encoding="utf-8").splitlines()
        run = next((shlex.split(line) for line in lines if line.startswith("exec ")), [])
        if _stale(run[1:4]):
            _replace(launcher, launcher_script(), 0o755)
            rewritten.append(launcher)
    path = user_folder() / PLUGIN_SETTINGS
    with suppress(OSError, ValueError):
        found = json.loads(path.read_text(encoding="utf-8"))
        start = found.get("start") if isinstance(found, dict) else None
        if isinstance(start, list) and _stale(start[:3]):
            write_plugin_settings({**found, "start": start_command()})
            rewritten.append(path)
    return rewritten


def _stale(command: list[Any]) -> bool:
    """`[interpreter, "-m", module]` of this installation naming another module."""
    return (len(command) == 3 and command[1] == "-m" and command[2] != COMMAND_MODULE
            and Path(str(command[0])).parent == Path(sys.executable).parent)


def write_plugin_settings(settings: dict[str, Any]) -> Path:
    """This machine's part of the OpenCode plugin's settings (kg_brain/surfaces/plugin.py)."""
    path = user_folder() / PLUGIN_SETTINGS
    path.parent.mkdir(parents=True, exist_ok=True)
    _replace(path, json.dumps(settings, indent=2) + "\n", 0o600)
    return path


def _replace(path: Path, text: str, mode: int) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.chmod(mode)
    tmp.replace(path)
