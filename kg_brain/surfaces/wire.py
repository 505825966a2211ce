"""`kg-brain wire opencode|claude|cursor [--global] [--url URL] [--tools core|full]`: add or
update the kg-brain MCP entry in the client's configuration file.

The entry runs `kg-brain mcp` (stdio: a light relay to the warm shared service,
kg_brain/surfaces/relay.py) with this installation's Python, so it works from a wheel as from a
checkout: a workspace's entry through the launcher in kg-brain's user folder
(kg_brain/surfaces/machine.py), written here, so that the file holds nothing of this machine; a
`--global` entry names the interpreter. With `--url` it points the client at a running `kg-brain
serve --http`, naming the workspace in the URL (`?repo=&name=`, the repository's identity,
kg_brain/surfaces/workspace.py) so that calls land in its project even from clients that offer no
MCP roots (the 2026-07-28 protocol has none); a `--global` entry names none. The entry also names
the client's tool profile (kg_brain/surfaces/profiles.py): an argument of the stdio command, a query
parameter of the URL. The rest of the file is kept as it was and the previous version is saved in
the state folder (`wire-backups/`), never next to the file: a workspace's file sits in the user's
repository. No file written here holds a secret: a project file (it may be committed) references the
Neo4j password and the HTTP token through the client's own file or environment syntax, a global one
names the files they are kept in (NEO4J_PASSWORD_FILE, 0600 in the private state folder).
For a stdio entry it then loads the embedding model once (fetching and building it on the first
use of the cache), so the client's first tool call does not wait for it.
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

from kg_brain.base.errors import InvalidInput
from kg_brain.base.private import ensure_token, keep_password, token_file
from kg_brain.base.settings import TOOL_PROFILES, Settings
from kg_brain.surfaces import machine, plugin
from kg_brain.surfaces.relay import TOOLS_OPTION
from kg_brain.surfaces.workspace import Identity, client_identity, client_url

SERVER_NAME = "kg-brain"
OPENCODE_SCHEMA = "https://opencode.ai/config.json"
PASSWORD = "NEO4J_PASSWORD"
PASSWORD_FILE = "NEO4J_PASSWORD_FILE"
TOKEN = "KG_BRAIN_HTTP_TOKEN"
BACKUPS = "wire-backups"


@dataclass(frozen=True)
class ClientFormat:
    """One MCP client's file layout: where its config lives, the key holding the servers, how
    it references an environment variable (and a file's text, when it can), and the shape of a
    stdio and a remote entry."""

    project_file: str
    global_file: Callable[[Settings], Path] | None
    section: str
    env_ref: str  # format string with {name}
    local: Callable[[list[str], dict[str, str]], dict[str, Any]]
    remote: Callable[[str, dict[str, str]], dict[str, Any]]
    start: Callable[[], dict[str, Any]] = dict
    file_ref: str | None = None  # format string with {path}


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
                             lambda: {"$schema": OPENCODE_SCHEMA}, "{{file:{path}}}"),
    # Claude Code's user scope lives in ~/.claude.json, a state file it rewrites itself.
    "claude": ClientFormat(".mcp.json", None, "mcpServers", "${{{name}}}", _stdio("stdio"),
                           _http("http")),
    "cursor": ClientFormat(".cursor/mcp.json", lambda s: Path.home() / ".cursor" / "mcp.json",
                           "mcpServers", "${{env:{name}}}", _stdio(None), _http(None)),
}


def server_command(tools: str) -> list[str]:
    """This installation's interpreter running `kg-brain mcp` (a light relay to the shared
    service when it runs, else the server in-process) with the tool profile: no path into a
    checkout."""
    return [sys.executable, "-m", machine.COMMAND_MODULE, *mcp_arguments(tools)]


def mcp_arguments(tools: str) -> list[str]:
    return ["mcp", TOOLS_OPTION, tools]


def stdio_command(tools: str, global_config: bool) -> list[str]:
    """A workspace's entry runs the launcher (the same on every machine), a global one the
    interpreter."""
    return server_command(tools) if global_config else \
        machine.launched_command(mcp_arguments(tools))


def protocol_file() -> Path:
    """AGENTS.md, the brain protocol: packaged in a wheel, at the top of a checkout."""
    packaged = Path(__file__).resolve().parents[1] / "AGENTS.md"
    return packaged if packaged.is_file() else Path(__file__).resolve().parents[2] / "AGENTS.md"


def server_environment(settings: Settings, client: ClientFormat,
                       global_config: bool) -> dict[str, str]:
    """Connection settings the spawned server needs when Neo4j is not the local default, the
    password by reference: a project file names the variable in the client's syntax (the
    client's environment holds it); a global entry names the file it is kept in (the user's
    NEO4J_PASSWORD_FILE, else one written here in the private state folder)."""
    if not settings.neo4j_uri:
        return {}
    env = {"NEO4J_URI": settings.neo4j_uri, "NEO4J_USER": settings.neo4j_user,
           "NEO4J_DATABASE": settings.neo4j_database}
    if not settings.neo4j_password:
        return env
    if not global_config:
        return {**env, PASSWORD: client.env_ref.format(name=PASSWORD)}
    kept = settings.neo4j_password_file or keep_password(settings, settings.neo4j_password)
    return {**env, PASSWORD_FILE: str(kept)}


def remote_headers(settings: Settings, client: ClientFormat) -> dict[str, str]:
    """The bearer token by reference: the token file where the client reads files (OpenCode's
    `{file:...}`), else KG_BRAIN_HTTP_TOKEN from the client's environment."""
    if settings.kg_brain_http_auth == "none":
        return {}
    if client.file_ref and not settings.kg_brain_http_token:
        return {"Authorization": "Bearer " + client.file_ref.format(
            path=home_relative(token_file(settings)))}
    return {"Authorization": "Bearer " + client.env_ref.format(name=TOKEN)}


def home_relative(path: Path) -> str:
    """`~/...` under the home folder (the same file for every user of a committed config)."""
    try:
        return "~/" + path.resolve().relative_to(Path.home().resolve()).as_posix()
    except ValueError:
        return str(path)


def token_hint(settings: Settings, client: ClientFormat) -> str:
    """Where the wired remote entry finds the token (made now if no service has yet)."""
    if settings.kg_brain_http_auth == "none":
        return ""
    if settings.kg_brain_http_token:
        return f"The client sends {TOKEN} from its environment as the bearer token.\n"
    path = token_file(settings)
    ensure_token(settings)
    if client.file_ref:
        return f"The client reads the bearer token from {path}.\n"
    return (f"The client sends {TOKEN} from its environment as the bearer token: start it with "
            f"{TOKEN}=\"$(cat {path})\" (or wire it without --url: the stdio relay reads the "
            "file itself).\n")


def url_hint(settings: Settings, cwd: Path | None = None) -> str:
    """A wired URL names the repository by its root commit; before the first commit it can only
    name this machine's folder, which a teammate's clone does not share."""
    named = client_identity(settings, cwd)
    if isinstance(named, Identity) and not named.id.startswith("git:"):
        return ("The URL names this folder (it is not a repository with commits): wire again "
                "after the first commit before committing the file.\n")
    return ""


def workspace_url(settings: Settings, url: str, cwd: Path | None = None,
                  global_config: bool = False) -> str:
    """The service's URL naming the tool profile and, unless global, the workspace at `cwd`
    (the working directory): its repository's root commit and name, the same in every clone
    (a folder outside git: a hash of its path), or KG_BRAIN_PROJECT."""
    named = None if global_config else client_identity(settings, cwd)
    return client_url(url, named, settings.kg_brain_tools)


def client_entry(settings: Settings, name: str, url: str | None,
                 global_config: bool = False) -> dict[str, Any]:
    """The entry for `settings.kg_brain_tools`, the profile `--tools` chose."""
    client = CLIENTS[name]
    if url:
        return client.remote(workspace_url(settings, url, global_config=global_config),
                             remote_headers(settings, client))
    return client.local(stdio_command(settings.kg_brain_tools, global_config),
                        server_environment(settings, client, global_config))


def config_path(settings: Settings, name: str, global_config: bool,
                cwd: Path | None = None) -> Path:
    client = CLIENTS[name]
    if not global_config:
        return (cwd or Path.cwd()) / client.project_file
    if client.global_file is None:
        raise InvalidInput(f"{name} has no global file kg-brain writes; run "
                           "`claude mcp add --scope user kg-brain -- "
                           + " ".join(server_command(settings.kg_brain_tools)) + "`")
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


def backup_path(backups: Path, path: Path) -> Path:
    """Where the previous version of `path` is kept: its absolute path flattened into a name."""
    flat = str(path.resolve()).strip("/").replace("/", "%")
    return backups / f"{flat}.bak"


def write_entry(path: Path, name: str, entry: dict[str, Any], backups: Path) -> Path | None:
    """Put the entry into `path`, keeping the rest; returns the backup written (in `backups`,
    outside the repository the file may be in), if any."""
    client = CLIENTS[name]
    config, before = _load(path, client.start())
    servers = config.setdefault(client.section, {})
    if not isinstance(servers, dict):
        raise InvalidInput(f"{path}: '{client.section}' is not an object")
    servers[SERVER_NAME] = entry
    backup = None
    if before is not None:
        backup = backup_path(backups, path)
        backup.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        backup.write_text(before, encoding="utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)
    return backup


def cmd_wire(args: argparse.Namespace, settings: Settings) -> int:
    if args.tools:
        settings = settings.model_copy(update={"kg_brain_tools": args.tools})
    path = config_path(settings, args.client, args.global_config)
    hint = "" if not args.url else token_hint(settings, CLIENTS[args.client]) + (
        "" if args.global_config else url_hint(settings))
    launcher = None if args.url or args.global_config else machine.write_launcher()
    backup = write_entry(path, args.client,
                         client_entry(settings, args.client, args.url, args.global_config),
                         settings.state_dir / BACKUPS)
    out = sys.stdout.write
    out(f"{args.client}: {SERVER_NAME} written to {path}"
        + (f" (previous version: {backup})" if backup else "") + "\n")
    if launcher:
        out(f"It runs kg-brain through {launcher}, written for this machine's interpreter.\n")
    out(hint)
    if args.client == "opencode" and args.plugin:
        out(install_plugin(settings, args.url, args.global_config))
    out(f"Brain protocol: add {protocol_file()} to your AGENTS.md (CLAUDE.md for Claude Code).\n")
    if not args.url:
        out(prepare_embedder(settings))
    return 0


def install_plugin(settings: Settings, url: str | None, global_config: bool) -> str:
    """The OpenCode plugin beside the entry: memory in the system context and mistakes
    recorded without the model asking (kg_brain/surfaces/plugin.py)."""
    env = server_environment(settings, CLIENTS["opencode"], global_config)
    path = plugin.install(settings, url, global_config, env)
    return (f"opencode: memory plugin written to {path} (settings: "
            f"{path.parent.parent / plugin.CONFIG_FILE}, this machine's in "
            f"{machine.user_folder() / machine.PLUGIN_SETTINGS}; --no-plugin leaves it out)\n")


def prepare_embedder(settings: Settings) -> str:
    """Loads the embedding model a stdio server will use, fetching, checking and building it on
    the first use of its cache: a client's first tool call must not wait for it, and OpenCode
    gives a call 60 s."""
    from kg_brain.enrichment.embed import build_embedder  # the model stack, only for this command

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
    parser.add_argument(TOOLS_OPTION, choices=TOOL_PROFILES,
                        help="the MCP tools the client is offered: core, the 9 an agent uses "
                             "every session, or full, with curation and maintenance (default "
                             "KG_BRAIN_TOOLS, else core)")
    parser.add_argument("--no-plugin", dest="plugin", action="store_false",
                        help="opencode: without the memory plugin (handoff in the system "
                             "context, mistakes recorded from failing commands)")
    parser.set_defaults(handler=cmd_wire)
