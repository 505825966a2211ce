"""`kg-brain mcp`: what a stdio client spawns. A light relay to the warm shared service when one
runs, the whole server in-process when none does.

Every client window spawns its own stdio server; loading the embedding model and the Neo4j
driver in each costs seconds and about a gigabyte. The shared service (`kg-brain serve --http`,
started by `make run`, or by this command on demand) holds both once. This module forwards the
window's JSON-RPC lines to it over streamable HTTP and its answers back, message by message, so
the service's requests to the client (`roots/list`, which names the workspace and so the
project) reach the client and its answers go back: every window keeps its own project. It uses
the standard library only (plus the settings), never torch, onnxruntime, the neo4j driver or an
MCP library, so a window starts in a fraction of a second with a few tens of megabytes.

The relay reaches the service only through its Unix socket in the private state folder
(kg_brain/surfaces/service.py), never through the port, so the token it sends reaches this user's
service whatever else listens on the port. When no service answers there (or one answers that uses
another Neo4j), the window is served in-process as `kg-brain serve` would, and a service is
started in the background (KG_BRAIN_SERVICE_START), detached so that it outlives this window,
for the next window to find warm; unless the port is held by a program that is not this user's
service: then that program is sent nothing, one warning says so, and none is started.

Every request names the window's workspace (its repository's identity and name, or
KG_BRAIN_PROJECT) and tool profile in the URL (kg_brain/surfaces/workspace.py),
so the service files calls under it even when the client offers no roots, and lists the tools
this window was wired with; and the window itself in a header, one id per relay process, whose
notes form one session order. When the service goes away under a
window (stopped, idle, restarted), the relay finds or starts a new one, opens a session there
with the client's own `initialize` and sends the request again; only requests the service never
received are sent again, so nothing is written twice.
"""

from __future__ import annotations

import http.client
import json
import logging
import os
import socket
import sys
import threading
import time
import uuid
from typing import IO, Any
from urllib.parse import urlsplit

from kg_brain.base.private import service_token
from kg_brain.base.settings import Settings
from kg_brain.surfaces import service
from kg_brain.surfaces.workspace import SESSION_HEADER, client_identity, client_url

log = logging.getLogger(__name__)
MCP_COMMAND = "mcp"
TOOLS_OPTION = "--tools"  # `kg-brain mcp --tools core|full`: the window's tool profile
MCP_HELP = ("the stdio MCP server for a client window: forwards to the shared service "
            "(`serve --http`) when it runs, else serves in-process and starts one")
HEALTH_PATH = "/health"
SERVICE_NAME = "kg-brain"
# How long `/health` is waited for. Only this user's service can listen on the socket in the
# private state folder: idle, it answers in milliseconds; busy (warming up beside other work on
# a loaded machine) in half a second or more, and a window that stops waiting sooner is served
# in-process beside it.
PROBE_TIMEOUT_S = 3.0
CLOSE_TIMEOUT_S = 2.0
CALL_TIMEOUT_S = 600.0
SERVICE_WAIT_S = 90.0
JSON = "application/json"
SSE = "text/event-stream"


def service_url(settings: Settings) -> str:
    return f"http://{service.client_host(settings)}:{settings.kg_brain_http_port}/mcp"


def health(settings: Settings) -> dict[str, Any]:
    """What `/health` of the shared service reports: its name, the Neo4j it uses, its process."""
    return {"service": SERVICE_NAME, "neo4j_uri": settings.neo4j_uri, "pid": os.getpid()}


def serves_this_window(found: dict[str, Any], settings: Settings) -> bool:
    return found.get("service") == SERVICE_NAME and found.get("neo4j_uri") == settings.neo4j_uri


def auth_headers(settings: Settings) -> dict[str, str]:
    """The service's bearer token, read from its file when asked (a service started after this
    window's relay made it then)."""
    token = service_token(settings)
    return {"Authorization": f"Bearer {token}"} if token else {}


class SocketConnection(http.client.HTTPConnection):
    """HTTP over the service's Unix socket, naming the service's address as `Host` (what its
    Host check expects)."""

    def __init__(self, settings: Settings, timeout: float | None) -> None:
        super().__init__(service.client_host(settings), settings.kg_brain_http_port,
                         timeout=timeout)
        self.socket_path = str(service.socket_path(settings))

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        try:
            sock.connect(self.socket_path)
        except OSError:
            sock.close()
            raise
        self.sock = sock


def probe(settings: Settings) -> dict[str, Any] | None:
    """What answers `/health` at the service's socket; None when nothing listens there."""
    conn = SocketConnection(settings, PROBE_TIMEOUT_S)
    try:
        conn.request("GET", HEALTH_PATH, headers=auth_headers(settings))
        reply = conn.getresponse()
        body = reply.read()
    except (OSError, http.client.HTTPException):
        return None
    finally:
        conn.close()
    try:
        found = json.loads(body) if reply.status == 200 else {"status": reply.status}
    except ValueError:
        found = {}
    return found if isinstance(found, dict) else {}


def wait_for_service(settings: Settings, wait_s: float = SERVICE_WAIT_S) -> bool:
    """Whether a service for this window answers within `wait_s` seconds."""
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        found = probe(settings)
        if found is not None and serves_this_window(found, settings):
            return True
        time.sleep(0.2)
    return False


class SessionLost(http.client.HTTPException):
    """The service does not know this window's session (it was restarted): never delivered."""


class Relay:
    """Streamable HTTP client side, message for message: each client request is a POST whose
    answer (JSON, or an SSE stream that may carry the service's own requests first) is written
    to stdout; notifications and the client's answers are POSTed as they come; the service's
    unsolicited messages arrive on one GET stream opened after `initialize`."""

    def __init__(self, settings: Settings, url: str, out: IO[bytes]) -> None:
        parts = urlsplit(url)
        self.settings = settings
        self.path = parts.path + (f"?{parts.query}" if parts.query else "")
        # one id for the window's life, also across the MCP sessions opened on a new service:
        # the notes it writes form one session order (kg_brain/surfaces/client_session.py)
        self.headers = {**auth_headers(settings), SESSION_HEADER: uuid.uuid4().hex}
        self.out = out
        self.out_lock = threading.Lock()
        self.opened: dict[str, Any] | None = None  # the client's initialize, to open anew
        self.generation = 0
        self.reopen_lock = threading.Lock()

    def run(self, stdin: IO[bytes]) -> int:
        for line in stdin:
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except ValueError:
                log.warning("ignored a line that is not JSON")
                continue
            if isinstance(message, dict) and message.get("method") == "initialize":
                self.opened = message
                self.post(message)  # the session id must be known before anything else
                threading.Thread(target=self.listen, daemon=True).start()
            elif isinstance(message, dict) and "id" in message and "method" in message:
                threading.Thread(target=self.post, args=(message,), daemon=True).start()
            else:
                self.post(message)  # notifications and answers, in order
        self.close()
        return 0

    def _connection(self, timeout: float | None) -> http.client.HTTPConnection:
        return SocketConnection(self.settings, timeout)

    def post(self, message: Any) -> None:
        """Send one message; if the service never got it because it went away, send it again
        to the service found or started in its place."""
        generation = self.generation
        try:
            self._send(message)
        except (ConnectionRefusedError, FileNotFoundError, SessionLost) as exc:  # never sent
            if message is self.opened or not self.reopen(generation):
                self._fail(message, exc)
                return
            try:
                self._send(message)
            except (OSError, http.client.HTTPException) as again:
                self._fail(message, again)
        except (OSError, http.client.HTTPException) as exc:
            self._fail(message, exc)

    def _send(self, message: Any, emit: bool = True) -> None:
        conn = self._connection(CALL_TIMEOUT_S)
        try:
            conn.request("POST", self.path, body=json.dumps(message).encode(),
                         headers={**self.headers, "Content-Type": JSON,
                                  "Accept": f"{JSON}, {SSE}"})
            reply = conn.getresponse()
            if reply.status == 404 and "Mcp-Session-Id" in self.headers:
                raise SessionLost(f"HTTP 404: session {self.headers['Mcp-Session-Id']} unknown")
            if reply.status >= 400:
                raise http.client.HTTPException(f"HTTP {reply.status} {reply.reason}")
            self._remember_session(reply)
            self._deliver(reply, emit)
        finally:
            conn.close()

    def reopen(self, generation: int) -> bool:
        """A session on a live service again (found, else started), opened with the client's
        own `initialize`; False when none comes up in time. Concurrent callers reopen once."""
        with self.reopen_lock:
            if generation != self.generation:
                return True
            if self.opened is None or not self._service_up():
                return False
            self.headers.pop("Mcp-Session-Id", None)
            try:
                self._send(self.opened, emit=False)
                self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            except (OSError, http.client.HTTPException) as exc:
                log.warning("could not open a session on the new service: %s", exc)
                return False
            self.generation += 1
        log.info("the kg-brain service went away: continuing on the one now at %s",
                 service.socket_path(self.settings))
        threading.Thread(target=self.listen, daemon=True).start()
        return True

    def _service_up(self) -> bool:
        found = probe(self.settings)
        if found is not None:
            return serves_this_window(found, self.settings)
        if not self.settings.kg_brain_service_start or service.port_held(self.settings):
            return False
        service.spawn(self.settings)
        return wait_for_service(self.settings)

    def listen(self) -> None:
        """The GET stream for messages the service sends outside any request (if offered)."""
        conn = self._connection(None)
        try:
            conn.request("GET", self.path, headers={**self.headers, "Accept": SSE})
            reply = conn.getresponse()
            if reply.status == 200:
                self._deliver(reply)
        except (OSError, http.client.HTTPException) as exc:
            log.debug("no stream of server messages: %s", exc)
        finally:
            conn.close()

    def close(self) -> None:
        """The client went away: end the service's session for it."""
        if "Mcp-Session-Id" not in self.headers:
            return
        conn = self._connection(CLOSE_TIMEOUT_S)
        try:
            conn.request("DELETE", self.path, headers=self.headers)
            conn.getresponse().read()
        except (OSError, http.client.HTTPException):
            pass
        finally:
            conn.close()

    def _remember_session(self, reply: http.client.HTTPResponse) -> None:
        session = reply.getheader("mcp-session-id")
        if session:
            self.headers["Mcp-Session-Id"] = session

    def _deliver(self, reply: http.client.HTTPResponse, emit: bool = True) -> None:
        kind = (reply.getheader("content-type") or "").split(";")[0].strip()
        if kind == JSON:
            body = reply.read()
            if emit:
                self._emit(body)
            return
        if kind != SSE or not emit:
            reply.read()
            return
        data: list[bytes] = []
        for raw in reply:  # server-sent events: `data:` lines, a blank line ends one
            line = raw.rstrip(b"\r\n")
            if line.startswith(b"data:"):
                data.append(line[5:].lstrip(b" "))
            elif not line and data:
                self._emit(b"\n".join(data))
                data = []

    def _emit(self, body: bytes) -> None:
        try:
            message = json.loads(body)
        except ValueError:
            return
        result = message.get("result") if isinstance(message, dict) else None
        if isinstance(result, dict) and "protocolVersion" in result and "serverInfo" in result:
            self.headers["MCP-Protocol-Version"] = str(result["protocolVersion"])
        with self.out_lock:
            self.out.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
            self.out.flush()

    def _fail(self, message: Any, exc: Exception) -> None:
        """A request the service did not answer gets an error the client can show."""
        log.warning("the kg-brain service did not answer: %s", exc)
        if isinstance(message, dict) and "id" in message and "method" in message:
            self._emit(json.dumps({"jsonrpc": "2.0", "id": message["id"], "error": {
                "code": -32000,
                "message": f"The shared kg-brain service at "
                           f"{service.socket_path(self.settings)} did not answer ({exc}). "
                           "Start it with `kg-brain service start`, or restart this window to "
                           "be served in-process."}}).encode())


def forward(settings: Settings) -> int | None:
    """Relay this window to the warm service and return when the client leaves; None when
    there is none to relay to (one is started when nothing listens on its port)."""
    if not settings.kg_brain_service:
        return None
    found = probe(settings)
    if found is not None and serves_this_window(found, settings):
        url = client_url(service_url(settings), client_identity(settings),
                         settings.kg_brain_tools)
        log.info("forwarding to the shared kg-brain service at %s", url)
        return Relay(settings, url, sys.stdout.buffer).run(sys.stdin.buffer)
    if found is None and service.port_held(settings):
        log.warning("port %d is held by a program that is not your kg-brain service (none "
                    "answers at %s): it is sent nothing; serving this window in-process",
                    settings.kg_brain_http_port, service.socket_path(settings))
    elif found is None and settings.kg_brain_service_start:
        service.spawn(settings)
    elif found is not None:
        log.info("the service on port %d is not this window's (%s); serving in-process",
                 settings.kg_brain_http_port, found)
    return None
