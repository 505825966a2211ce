"""`kg-brain wire opencode [--global]`: add or update the kg-brain MCP entry in opencode.json.

The rest of the file is kept as it was and the previous version is saved next to it as `.bak`.
The equivalents for Claude Code and Cursor are printed, not written: their files belong to them.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shlex
import sys
from pathlib import Path
from typing import Any

from kg_brain.errors import InvalidInput, SetupError
from kg_brain.settings import Settings

SERVER_NAME = "kg-brain"
SCHEMA_URL = "https://opencode.ai/config.json"
PASSWORD_REF = "{env:NEO4J_PASSWORD}"  # OpenCode's syntax; each client has its own
CURSOR_PASSWORD_REF = "${env:NEO4J_PASSWORD}"


def server_script() -> Path:
    """mcp_server.py of this installation: the source checkout's, else the installed one."""
    checkout = Path(__file__).resolve().parent.parent / "mcp_server.py"
    if checkout.is_file() and checkout.stat().st_size > 0:
        return checkout
    spec = importlib.util.find_spec("mcp_server")
    if spec is None or spec.origin is None:
        raise SetupError("mcp_server.py not found; reinstall kg-brain")
    return Path(spec.origin)


def server_command() -> list[str]:
    return [sys.executable, str(server_script())]


def server_environment(settings: Settings, global_config: bool) -> dict[str, str]:
    """Connection settings the spawned server needs when Neo4j is not the local default.
    A project file may be committed, so it references the password instead of holding it."""
    if not settings.neo4j_uri:
        return {}
    env = {"NEO4J_URI": settings.neo4j_uri, "NEO4J_USER": settings.neo4j_user,
           "NEO4J_DATABASE": settings.neo4j_database}
    if settings.neo4j_password:
        env["NEO4J_PASSWORD"] = settings.neo4j_password if global_config else PASSWORD_REF
    return env


def opencode_path(settings: Settings, global_config: bool, cwd: Path | None = None) -> Path:
    if global_config:
        return settings.opencode_global_config
    return (cwd or Path.cwd()) / "opencode.json"


def opencode_entry(command: list[str], env: dict[str, str]) -> dict[str, Any]:
    entry: dict[str, Any] = {"type": "local", "command": command, "enabled": True}
    if env:
        entry["environment"] = env
    return entry


def wire_opencode(path: Path, entry: dict[str, Any]) -> Path | None:
    """Write the entry into `path`; returns the backup written, if the file existed."""
    config: dict[str, Any] = {"$schema": SCHEMA_URL}
    backup = None
    if path.exists():
        text = path.read_text(encoding="utf-8")
        try:
            config = json.loads(text) if text.strip() else {}
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"{path} is not plain JSON ({exc}); fix it or add the entry "
                               "by hand") from None
        if not isinstance(config, dict):
            raise InvalidInput(f"{path} does not hold a JSON object")
        backup = path.with_name(path.name + ".bak")
        backup.write_text(text, encoding="utf-8")
    servers = config.setdefault("mcp", {})
    if not isinstance(servers, dict):
        raise InvalidInput(f"{path}: 'mcp' is not an object")
    servers[SERVER_NAME] = entry
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)
    return backup


def other_clients(command: list[str], env: dict[str, str]) -> str:
    """The same server for Claude Code (a command to run) and Cursor (an mcp.json entry)."""
    env_flags = [f'-e {k}="$NEO4J_PASSWORD"' if v == PASSWORD_REF else
                 f"-e {shlex.quote(f'{k}={v}')}" for k, v in env.items()]
    claude = " ".join(["claude mcp add", SERVER_NAME, *env_flags, "--", shlex.join(command)])
    cursor_env = {k: CURSOR_PASSWORD_REF if v == PASSWORD_REF else v for k, v in env.items()}
    cursor = {"mcpServers": {SERVER_NAME: {"command": command[0], "args": command[1:],
                                           **({"env": cursor_env} if cursor_env else {})}}}
    return (f"Claude Code:\n  {claude}\n"
            f"Cursor (~/.cursor/mcp.json or .cursor/mcp.json):\n"
            + json.dumps(cursor, indent=2) + "\n")


def cmd_wire(args: argparse.Namespace, settings: Settings) -> int:
    command = server_command()
    env = server_environment(settings, args.global_config)
    path = opencode_path(settings, args.global_config)
    backup = wire_opencode(path, opencode_entry(command, env))
    out = sys.stdout.write
    out(f"OpenCode: {SERVER_NAME} written to {path}"
        + (f" (previous version: {backup})" if backup else "") + "\n")
    out(f"Brain protocol: add {server_script().with_name('AGENTS.md')} to your AGENTS.md "
        "(or to \"instructions\" in opencode.json)\n\n")
    out(other_clients(command, env))
    return 0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("wire", help="add kg-brain to an MCP client's configuration")
    parser.add_argument("client", choices=["opencode"])
    parser.add_argument("--global", dest="global_config", action="store_true",
                        help="~/.config/opencode/opencode.json instead of ./opencode.json")
    parser.set_defaults(handler=cmd_wire)
