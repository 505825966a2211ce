"""Installing the OpenCode plugin (kg_brain/surfaces/opencode/kg-brain.js) beside the MCP entry.

OpenCode loads every `*.js` and `*.ts` in `plugin/` of the workspace's `.opencode/` folder and of
its global config folder. The plugin is copied there with the modules it imports (`*.mjs`, which
OpenCode does not load as a plugin); it is versioned with kg-brain: wiring again after an
upgrade replaces both. Its settings are in two files. `kg-brain.json`, next to that `plugin/`
folder, holds what is the same on every machine, so a workspace's can be committed: the budgets
of the start context and of the notes recalled for each user message (a budget the user changed
there is kept) and, wired with `--url`, that service's address (never started by the plugin).
This machine's part, in kg-brain's user folder (kg_brain/surfaces/machine.py), holds the shared
service's address and its Unix socket (the only way the plugin reaches it:
kg_brain/surfaces/service.py), its token file, the command that starts it when nothing answers
(`kg-brain service start`, through the start lock) and the log that command writes to.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from kg_brain.base.errors import InvalidInput
from kg_brain.base.private import token_file
from kg_brain.base.settings import Settings
from kg_brain.surfaces import machine
from kg_brain.surfaces.relay import service_url
from kg_brain.surfaces.service import log_path, socket_path

SOURCE = Path(__file__).with_name("opencode") / "kg-brain.js"
COMMANDS = SOURCE.with_name("kg-brain-commands.mjs")  # which bash runs are equivalent
CONNECTION = SOURCE.with_name("kg-brain-service.mjs")  # settings, requests, starting the service
CONFIG_FILE = "kg-brain.json"
USER_KEYS = ("budget_tokens", "recall_budget_tokens", "read_timeout_ms", "write_timeout_ms",
             "capture_commands")
RECALL_BUDGET_TOKENS = 600  # the relevant notes added for one user message


def opencode_folder(settings: Settings, global_config: bool, cwd: Path | None = None) -> Path:
    """`.opencode/` of the workspace, or the folder of the global opencode.json."""
    if global_config:
        return settings.opencode_global_config.parent
    return (cwd or Path.cwd()) / ".opencode"


def service_base(settings: Settings, url: str | None) -> str:
    """Where the plugin posts: the service of `--url`, else the shared service's address."""
    parts = urlsplit(url or service_url(settings))
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InvalidInput(f"{url!r} is not an http(s) URL of a kg-brain service")
    return f"{parts.scheme}://{parts.netloc}"


def plugin_config(settings: Settings, url: str | None) -> dict[str, Any]:
    """The workspace's settings: nothing of this machine. A `--url` service is never started."""
    named = {"url": service_base(settings, url), "socket": "", "start": []} if url else {}
    return {**named, "budget_tokens": settings.session_context_tokens,
            "recall_budget_tokens": RECALL_BUDGET_TOKENS}


def machine_config(settings: Settings, env: dict[str, str]) -> dict[str, Any]:
    """This machine's settings. `env`: what the started service needs to reach Neo4j (secrets
    by reference: `{env:NAME}` or a file's path), its port and its data folder (where its token
    and socket are)."""
    return {"url": service_base(settings, None), "socket": str(socket_path(settings)),
            "token_file": str(token_file(settings)),
            "start": machine.start_command(),
            "start_env": {**env, "KG_BRAIN_HTTP_PORT": str(settings.kg_brain_http_port),
                          "KG_BRAIN_DATA_DIR": str(settings.kg_brain_data_dir)},
            "log_file": str(log_path(settings))}


def _kept(path: Path) -> dict[str, Any]:
    """The user's own settings from an earlier install (an unreadable file keeps none)."""
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: found[k] for k in USER_KEYS if isinstance(found, dict) and k in found}


def install(settings: Settings, url: str | None, global_config: bool, env: dict[str, str],
            cwd: Path | None = None) -> Path:
    """Copy the plugin and write its settings, the workspace's and this machine's; returns the
    plugin's path."""
    folder = opencode_folder(settings, global_config, cwd)
    target = folder / "plugin" / SOURCE.name
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(SOURCE, target)
    for module in (COMMANDS, CONNECTION):
        shutil.copyfile(module, target.with_name(module.name))
    config_path = folder / CONFIG_FILE
    config = {**plugin_config(settings, url), **_kept(config_path)}
    config_path.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    machine.write_plugin_settings(machine_config(settings, env))
    return target
