"""The MCP transports: stdio (what OpenCode spawns) or streamable HTTP, and `kg-brain serve`.

stdout belongs to the stdio protocol: logs go to stderr and nothing else is written there. HTTP
binds to 127.0.0.1 by default and admits only its user (kg_brain/surfaces/guard.py: Host and Origin
checks, a bearer token on every request). Every start makes kg-brain's folders private.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import threading
import time
from typing import Any

from fastmcp.server.middleware import Middleware, MiddlewareContext
from starlette.middleware import Middleware as ASGIMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse

from kg_brain.base.errors import BrainError, PortHeld
from kg_brain.base.private import tighten_install
from kg_brain.base.settings import Settings
from kg_brain.root.app import Brain, interrupt_on_sigterm
from kg_brain.surfaces import plugin_api
from kg_brain.surfaces.guard import http_middleware
from kg_brain.surfaces.maintenance import SessionScheduler, start_in_background
from kg_brain.surfaces.project import SpawnedIn
from kg_brain.surfaces.relay import HEALTH_PATH, health
from kg_brain.surfaces.service import (
    PORT_HELD,
    START_LOCK_OPTION,
    Activity,
    Idleness,
    bind,
    bind_socket,
    release_start_lock,
    remove_pid,
    remove_socket,
    write_pid,
)
from kg_brain.surfaces.tools import BrainTools, build_server
from kg_brain.surfaces.wire import OPENCODE_SCHEMA, SERVER_NAME, client_entry

log = logging.getLogger(__name__)
HTTP_PATH = "/mcp"
LIST_GRACE_S = 5.0  # how long the warm-up waits for the client's tools/list (OpenCode's limit)
# What the warm-up asks (WarmUp.plan_searches): a project holding no notes (its reads find
# nothing and write nothing) and a question. Each search statement has one plan whatever the
# question and the project (what changes with them is one map parameter:
# kg_brain/store/search.py Asked), so one call of each plans what every later call runs.
WARM_UP_PROJECT = "kg-brain-warm-up"
WARM_UP_QUESTION = "How does the worker back off between retries?"


def opencode_remote_config(settings: Settings, host: str, port: int) -> dict[str, Any]:
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    entry = client_entry(settings, "opencode", f"http://{shown}:{port}{HTTP_PATH}",
                         global_config=True)
    return {"$schema": OPENCODE_SCHEMA, "mcp": {SERVER_NAME: entry}}


class WarmUp(Middleware):
    """Once the client is connected and about to work: import and connect the driver and load
    the embedding model in background threads, so the first real call does not pay for them,
    then have Neo4j plan the search statements (search_memory, deep_search, preflight_check),
    which takes it seconds of CPU on a server that has not planned them yet (a fresh start, or
    plans evicted). The server module loads neither (listing needs neither). They start when
    the first tools/list is answered, or LIST_GRACE_S after the first `initialize` if none is
    by then: loading them beside the listing slowed it by about a second on a loaded machine,
    and OpenCode drops a server whose tools/list takes more than 5 s. Nothing waits for the
    warm-up: a real call that comes first runs beside it."""

    def __init__(self, brain: Brain) -> None:
        self.brain = brain
        self.started = threading.Event()
        self.listed = threading.Event()
        self.done = threading.Event()  # the warm-up has ended, planning included

    async def on_initialize(self, context: MiddlewareContext[Any], call_next: Any) -> Any:
        answer = await call_next(context)
        self._start()
        return answer

    async def on_list_tools(self, context: MiddlewareContext[Any], call_next: Any) -> Any:
        tools = await call_next(context)
        self.listed.set()
        self._start()  # a client of the stateless protocol revision lists without initializing
        return tools

    def _start(self) -> None:
        if self.started.is_set():
            return
        self.started.set()
        loads = [threading.Thread(target=self._after_listing, args=(name, task), daemon=True,
                                  name=f"kg-brain-warm-{name}")
                 for name, task in (("database", self._database), ("model", self._model))]
        for thread in loads:
            thread.start()
        # closing waits for the call under way (the next is not made): a process leaving while
        # the model embeds in another thread aborts
        if self.brain.on_close(self._planned):
            threading.Thread(target=self._after_loads, args=(loads,), daemon=True,
                             name="kg-brain-warm-plans").start()
        else:
            self.done.set()

    def _planned(self) -> None:
        self.done.wait(self.brain.settings.neo4j_timeout_s)

    def _after_listing(self, name: str, task: Any) -> None:
        self.listed.wait(LIST_GRACE_S)
        self._quietly(name, task)

    def _after_loads(self, loads: list[threading.Thread]) -> None:
        for thread in loads:
            thread.join()
        try:
            self._quietly("search plans", self.plan_searches)
        finally:
            self.done.set()

    def _database(self) -> None:
        self.brain.db.verify()

    def _model(self) -> None:
        self.brain.embedder.encode("warm up")

    def plan_searches(self) -> None:
        """Each search statement run once (WARM_UP_PROJECT, WARM_UP_QUESTION, no access
        stamp), stopping when the server closes."""
        started = time.perf_counter()
        search, mistakes = self.brain.search, self.brain.mistakes
        for call in (lambda: search.search_memory(WARM_UP_QUESTION, WARM_UP_PROJECT, stamp=False),
                     lambda: search.deep_search(WARM_UP_QUESTION, WARM_UP_PROJECT, stamp=False),
                     lambda: mistakes.preflight_check(WARM_UP_QUESTION, WARM_UP_PROJECT)):
            if self.brain.stopping.is_set():
                return
            call()
        log.info("warm-up: the search statements planned in %.1f s",
                 time.perf_counter() - started)

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
          host: str | None = None, port: int | None = None,
          start_lock: int | None = None) -> int:
    """Run until the client disconnects (stdio) or the process is interrupted (SIGINT or
    SIGTERM, either transport); the caller then closes the Brain, in order. The HTTP service
    runs maintenance for the whole database from its start, a stdio server for its window's
    projects from their first call. `start_lock`: the start lock inherited from the client that
    started this service (kg_brain/surfaces/service.py), let go once it listens."""
    tighten_install(settings)
    mcp.add_middleware(WarmUp(brain))
    interrupt_on_sigterm()  # uvicorn re-raises the signal it caught once it has shut down
    try:
        if http:
            _serve_http(settings, brain, mcp, host, port, start_lock)
        else:
            mcp.add_middleware(SpawnedIn(settings))
            mcp.add_middleware(SessionScheduler(brain))
            mcp.run("stdio", show_banner=False)
    except KeyboardInterrupt:
        log.info("interrupted: stopping")
    return 0


def _serve_http(settings: Settings, brain: Brain, mcp: Any, host: str | None,
                port: int | None, start_lock: int | None) -> None:
    """Binds the port first: a service started beside another that holds it stops here, before
    its pid file or any background job."""
    host = host or settings.kg_brain_http_host
    port = port or settings.kg_brain_http_port
    try:
        sock = bind(host, port)
    except OSError as exc:
        raise PortHeld(f"cannot listen on {host}:{port} ({exc.strerror}): another kg-brain "
                       "service (or another program) holds it; this one does not start") \
            from None
    local = bind_socket(settings, port)  # this machine's clients: kg_brain/surfaces/service.py
    write_pid(settings, port)
    release_start_lock(start_lock)
    middleware = [*http_middleware(settings, host, port), *lifecycle_middleware(settings)]
    mcp.custom_route(HEALTH_PATH, methods=["GET"])(health_route(settings))
    plugin_api.register(mcp, BrainTools(brain))
    config = opencode_remote_config(settings, host, port)
    url = config["mcp"][SERVER_NAME]["url"]
    sys.stdout.write(f"In each workspace: kg-brain wire opencode|claude|cursor --url {url}\n"
                     "or add to opencode.json:\n" + json.dumps(config, indent=2) + "\n")
    sys.stdout.flush()
    start_in_background(brain)  # from the start: a client may write without listing tools
    try:
        mcp.run("http", show_banner=False, host=host, port=port, path=HTTP_PATH,
                middleware=middleware, sockets=[sock, local])
    finally:
        remove_socket(settings, port)
        remove_pid(settings)


def lifecycle_middleware(settings: Settings) -> list[ASGIMiddleware]:
    """Counts requests in flight, and stops the service after KG_BRAIN_SERVICE_IDLE_S idle."""
    idleness = Idleness()
    if settings.kg_brain_service_idle_s:
        idleness.stop_after(settings.kg_brain_service_idle_s)
    return [ASGIMiddleware(Activity, idleness=idleness, skip=HEALTH_PATH)]


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    if args.start_lock_fd is not None:
        os.set_inheritable(args.start_lock_fd, False)  # never held by a process this one starts
    brain = Brain(settings)
    try:
        return serve(settings, brain, build_server(brain), args.http, args.host, args.port,
                     args.start_lock_fd)
    except PortHeld as exc:  # its own status: a user unit does not restart it for this
        sys.stderr.write(f"kg-brain: {exc}\n")
        return PORT_HELD
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
                             "the client's workspace (its first MCP root, named by the "
                             "repository holding it), else what its URL names, else "
                             "KG_BRAIN_PROJECT, else the repository of the server's working "
                             "directory, else 'general'")
    parser.add_argument("--host", help="HTTP bind address (KG_BRAIN_HTTP_HOST); beyond loopback "
                                       "list the names clients use in "
                                       "KG_BRAIN_HTTP_ALLOWED_HOSTS")
    parser.add_argument("--port", type=int, help="HTTP port (KG_BRAIN_HTTP_PORT)")
    parser.add_argument(START_LOCK_OPTION, dest="start_lock_fd", type=int,
                        help=argparse.SUPPRESS)  # given by the client that starts the service


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("serve", help="run the MCP server (stdio, or --http)")
    add_serve_arguments(parser)
    parser.set_defaults(handler=cmd_serve)
