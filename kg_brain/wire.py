"""`kg-brain wire opencode|claude|cursor [--global] [--url URL]`: add or update the kg-brain MCP
entry in the client's configuration file.

The entry runs this installation's Python with `-m kg_brain.cli mcp` (stdio: a light relay to
the warm shared service, kg_brain/relay.py), so it works from a wheel as from a checkout; with
`--url` it points the client at a running `kg-brain serve --http`.
The rest of the file is kept as it was and the previous version is saved next to it as `.bak`.
A project file may be committed, so it references secrets (the Neo4j password, the HTTP token)
through the client's own environment syntax instead of holding them. For a stdio entry it then
loads the embedding model once (exporting the ONNX runtime on the first use of the cache), so the
client's first tool call does not wait for it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kg_brain.errors import InvalidInput
from kg_brain.settings import Settings

SERVER_NAME = "kg-brain"
OPENCODE_SCHEMA = "https://opencode.ai/config.json"
PASSWORD = "NEO4J_PASSWORD"
TOKEN = "KG_BRAIN_HTTP_TOKEN"


@dataclass(frozen=True)
class ClientFormat:
    """One MCP client's file layout: where its config lives, the key holding the servers, how
    it references an environment variable, and the shape of a stdio and a remote entry."""

    project_file: str
    global_file: Callable[[Settings], Path] | None
    section: str
    env_ref: str  # format string with {name}
    local: Callable[[list[str], dict[str, str]], dict[str, Any]]
    remote: Callable[[str, dict[str, str]], dict[str, Any]]
    start: Callable[[], dict[str, Any]] = dict


def _opencode_local(command: list[str], env: dict[str, str]) -> dict[str, Any]:
    return {"type": "local", "command": command, "enabled": True,
            **({"environment": env} if env else {})}


def _opencode_remote(url: str, headers: dict[str, str]) -> dict[str, Any]:
    """`oauth: false`: kg-brain authenticates with a bearer token, never OAuth."""
    return {"type": "remote", "url": url, "enabled": True, "oauth": False,
            **({"headers": headers} if headers else {})}


def _stdio(kind: str | None) -> Callable[[list[str], dict[str, str]], dict[str, Any]]:
    def entry(command: list[str], env: dict[str, str]) -> dict[str, Any]:
        return {**({"type": kind} if kind else {}), "command": command[0], "args": command[1:],
                **({"env": env} if env else {})}

    return entry


def _http(kind: str | None) -> Callable[[str, dict[str, str]], dict[str, Any]]:
    def entry(url: str, headers: dict[str, str]) -> dict[str, Any]:
        return {**({"type": kind} if kind else {}), "url": url,
                **({"headers": headers} if headers else {})}

    return entry


CLIENTS: dict[str, ClientFormat] = {
    "opencode": ClientFormat("opencode.json", lambda s: s.opencode_global_config, "mcp",
                             "{{env:{name}}}", _opencode_local, _opencode_remote,
                             lambda: {"$schema": OPENCODE_SCHEMA}),
    # Claude Code's user scope lives in ~/.claude.json, a state file it rewrites itself.
    "claude": ClientFormat(".mcp.json", None, "mcpServers", "${{{name}}}", _stdio("stdio"),
                           _http("http")),
    "cursor": ClientFormat(".cursor/mcp.json", lambda s: Path.home() / ".cursor" / "mcp.json",
                           "mcpServers", "${{env:{name}}}", _stdio(None), _http(None)),
}


def server_command() -> list[str]:
    """This installation's interpreter running `kg-brain mcp` (a light relay to the shared
    service when it runs, else the server in-process): no path into a checkout."""
    return [sys.executable, "-m", "kg_brain.cli", "mcp"]


def protocol_file() -> Path:
    """AGENTS.md, the brain protocol: packaged in a wheel, at the top of a checkout."""
    packaged = Path(__file__).with_name("AGENTS.md")
    return packaged if packaged.is_file() else Path(__file__).resolve().parent.parent / "AGENTS.md"


def server_environment(settings: Settings, client: ClientFormat, literal: bool) -> dict[str, str]:
    """Connection settings the spawned server needs when Neo4j is not the local default."""
    if not settings.neo4j_uri:
        return {}
    env = {"NEO4J_URI": settings.neo4j_uri, "NEO4J_USER": settings.neo4j_user,
           "NEO4J_DATABASE": settings.neo4j_database}
    if settings.neo4j_password:
        env[PASSWORD] = (settings.neo4j_password if literal
                         else client.env_ref.format(name=PASSWORD))
    return env


def remote_headers(settings: Settings, client: ClientFormat) -> dict[str, str]:
    if not settings.kg_brain_http_token:
        return {}
    return {"Authorization": "Bearer " + client.env_ref.format(name=TOKEN)}


def client_entry(settings: Settings, name: str, url: str | None,
                 global_config: bool = False) -> dict[str, Any]:
    client = CLIENTS[name]
    if url:
        return client.remote(url, remote_headers(settings, client))
    return client.local(server_command(), server_environment(settings, client, global_config))


def config_path(settings: Settings, name: str, global_config: bool,
                cwd: Path | None = None) -> Path:
    client = CLIENTS[name]
    if not global_config:
        return (cwd or Path.cwd()) / client.project_file
    if client.global_file is None:
        raise InvalidInput(f"{name} has no global file kg-brain writes; run "
                           "`claude mcp add --scope user kg-brain -- "
                           + " ".join(server_command()) + "`")
    return client.global_file(settings)


def _load(path: Path, start: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    if not path.exists():
        return start, None
    text = path.read_text(encoding="utf-8")
    try:
        config = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{path} is not plain JSON ({exc}); fix it or add the entry "
                           "by hand") from None
    if not isinstance(config, dict):
        raise InvalidInput(f"{path} does not hold a JSON object")
    return config, text


def write_entry(path: Path, name: str, entry: dict[str, Any]) -> Path | None:
    """Put the entry into `path`, keeping the rest; returns the backup written, if any."""
    client = CLIENTS[name]
    config, before = _load(path, client.start())
    servers = config.setdefault(client.section, {})
    if not isinstance(servers, dict):
        raise InvalidInput(f"{path}: '{client.section}' is not an object")
    servers[SERVER_NAME] = entry
    backup = None
    if before is not None:
        backup = path.with_name(path.name + ".bak")
        backup.write_text(before, encoding="utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)
    return backup


def cmd_wire(args: argparse.Namespace, settings: Settings) -> int:
    path = config_path(settings, args.client, args.global_config)
    backup = write_entry(path, args.client,
                         client_entry(settings, args.client, args.url, args.global_config))
    out = sys.stdout.write
    out(f"{args.client}: {SERVER_NAME} written to {path}"
        + (f" (previous version: {backup})" if backup else "") + "\n")
    if args.url and settings.kg_brain_http_token:
        out(f"The client sends {TOKEN} from its environment as the bearer token.\n")
    out(f"Brain protocol: add {protocol_file()} to your AGENTS.md (CLAUDE.md for Claude Code).\n")
    if not args.url:
        out(prepare_embedder(settings))
    return 0


def prepare_embedder(settings: Settings) -> str:
    """Loads the embedding model a stdio server will use, exporting and verifying it on the
    first use of its cache (about 40 s of CPU here): a client's first tool call must not wait
    for it, and OpenCode gives a call 60 s."""
    from kg_brain.embed import build_embedder  # the model stack, only for this command

    began = time.monotonic()
    embedder = build_embedder(settings)
    embedder.encode("kg-brain")
    return f"Embedding model ready: {embedder.runtime} ({time.monotonic() - began:.1f} s).\n"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("wire", help="add kg-brain to an MCP client's configuration",
                            description=__doc__)
    parser.add_argument("client", choices=sorted(CLIENTS))
    parser.add_argument("--global", dest="global_config", action="store_true",
                        help="the user's file (~/.config/opencode/opencode.json, "
                             "~/.cursor/mcp.json) instead of the workspace's")
    parser.add_argument("--url", help="a running `kg-brain serve --http`, e.g. "
                                      "http://127.0.0.1:8765/mcp, instead of a stdio server")
    parser.set_defaults(handler=cmd_wire)
