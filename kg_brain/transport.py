"""The MCP transports: stdio (what OpenCode spawns) or streamable HTTP, and `kg-brain serve`.

stdout belongs to the stdio protocol: logs go to stderr and nothing else is written there. HTTP
binds to 127.0.0.1 by default; any other address needs KG_BRAIN_HTTP_TOKEN, and whenever a token
is set every request must carry `Authorization: Bearer <token>` (401 otherwise).
"""

from __future__ import annotations

import argparse
import hmac
import ipaddress
import json
import logging
import sys
import threading
from typing import Any

from fastmcp.server.middleware import Middleware, MiddlewareContext
from starlette.middleware import Middleware as ASGIMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from kg_brain.app import Brain, interrupt_on_sigterm
from kg_brain.errors import BrainError, SetupError
from kg_brain.maintenance import SessionScheduler, start_in_background
from kg_brain.relay import HEALTH_PATH, health
from kg_brain.settings import Settings
from kg_brain.tools import build_server
from kg_brain.wire import OPENCODE_SCHEMA, SERVER_NAME, client_entry

log = logging.getLogger(__name__)
HTTP_PATH = "/mcp"


class BearerAuth:
    """ASGI middleware: reject HTTP requests whose bearer token does not match (constant time)."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                response = JSONResponse({"error": "missing or wrong bearer token"},
                                        status_code=401,
                                        headers={"WWW-Authenticate": 'Bearer realm="kg-brain"'})
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def http_middleware(settings: Settings, host: str) -> list[ASGIMiddleware]:
    """The bearer check when a token is set; refuse to expose the server without one."""
    token = settings.kg_brain_http_token
    if not token:
        if not is_loopback(host):
            raise SetupError(f"binding to {host} exposes your memory to the network: set "
                             "KG_BRAIN_HTTP_TOKEN (clients send Authorization: Bearer <token>) "
                             "or bind to 127.0.0.1")
        return []
    return [ASGIMiddleware(BearerAuth, token=token)]


def opencode_remote_config(settings: Settings, host: str, port: int) -> dict[str, Any]:
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    entry = client_entry(settings, "opencode", f"http://{shown}:{port}{HTTP_PATH}")
    return {"$schema": OPENCODE_SCHEMA, "mcp": {SERVER_NAME: entry}}


class WarmUp(Middleware):
    """After the first tools/list (the client is connected and about to work), connect to Neo4j,
    load the embedding model and (for the shared HTTP service) start the whole database's
    maintenance scheduler in background threads, so the first real call does not pay for them
    and `initialize` is never slowed by them."""

    def __init__(self, brain: Brain, shared: bool) -> None:
        self.brain = brain
        self.shared = shared
        self.started = threading.Event()

    async def on_list_tools(self, context: MiddlewareContext[Any], call_next: Any) -> Any:
        tools = await call_next(context)
        if not self.started.is_set():
            self.started.set()
            for name, task in (("database", self._database), ("model", self._model),
                               ("scheduler", self._scheduler)):
                threading.Thread(target=self._quietly, args=(name, task), daemon=True,
                                 name=f"kg-brain-warm-{name}").start()
        return tools

    def _database(self) -> None:
        self.brain.db.verify()

    def _model(self) -> None:
        self.brain.embedder.encode("warm up")

    def _scheduler(self) -> None:
        if self.shared:
            start_in_background(self.brain)

    @staticmethod
    def _quietly(name: str, task: Any) -> None:
        """A failed warm-up is only logged: the tool call that needs it reports the error."""
        try:
            task()
        except BrainError as exc:
            log.warning("warm-up of the %s failed: %s", name, exc)


def health_route(settings: Settings) -> Any:
    """`/health`: what `kg-brain mcp` checks before forwarding a window here (same Neo4j)."""
    async def route(request: Request) -> JSONResponse:
        return JSONResponse(health(settings))

    return route


def serve(settings: Settings, brain: Brain, mcp: Any, http: bool = False,
          host: str | None = None, port: int | None = None) -> int:
    """Run until the client disconnects (stdio) or the process is interrupted (SIGINT or
    SIGTERM, either transport); the caller then closes the Brain, in order. The HTTP service
    runs maintenance for the whole database, a stdio server for its window's projects."""
    mcp.add_middleware(WarmUp(brain, shared=http))
    interrupt_on_sigterm()  # uvicorn re-raises the signal it caught once it has shut down
    try:
        if http:
            _serve_http(settings, mcp, host, port)
        else:
            mcp.add_middleware(SessionScheduler(brain))
            mcp.run("stdio", show_banner=False)
    except KeyboardInterrupt:
        log.info("interrupted: stopping")
    return 0


def _serve_http(settings: Settings, mcp: Any, host: str | None, port: int | None) -> None:
    host = host or settings.kg_brain_http_host
    port = port or settings.kg_brain_http_port
    middleware = http_middleware(settings, host)
    mcp.custom_route(HEALTH_PATH, methods=["GET"])(health_route(settings))
    config = opencode_remote_config(settings, host, port)
    url = config["mcp"][SERVER_NAME]["url"]
    sys.stdout.write(f"In each workspace: kg-brain wire opencode|claude|cursor --url {url}\n"
                     "or add to opencode.json:\n" + json.dumps(config, indent=2) + "\n")
    sys.stdout.flush()
    mcp.run("http", show_banner=False, host=host, port=port, path=HTTP_PATH,
            middleware=middleware)


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    brain = Brain(settings)
    try:
        return serve(settings, brain, build_server(brain), args.http, args.host, args.port)
    finally:
        brain.close()


def serve_stdio(settings: Settings) -> int:
    """A client window served in-process (`kg-brain mcp` when no shared service answers)."""
    brain = Brain(settings)
    try:
        return serve(settings, brain, build_server(brain))
    finally:
        brain.close()


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--http", action="store_true",
                        help="streamable HTTP instead of stdio (default 127.0.0.1:8765/mcp). One "
                             "server serves every workspace: a call without `project` goes to "
                             "the client's workspace (its first MCP root, named after the git "
                             "root holding it), else KG_BRAIN_PROJECT, else the git root of the "
                             "server's working directory, else 'general'")
    parser.add_argument("--host", help="HTTP bind address (KG_BRAIN_HTTP_HOST); off loopback "
                                       "needs KG_BRAIN_HTTP_TOKEN")
    parser.add_argument("--port", type=int, help="HTTP port (KG_BRAIN_HTTP_PORT)")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("serve", help="run the MCP server (stdio, or --http)")
    add_serve_arguments(parser)
    parser.set_defaults(handler=cmd_serve)
