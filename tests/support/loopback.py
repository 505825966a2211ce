"""Stand-in servers on 127.0.0.1 for a block: an HTTP server (a scripted model, an Obsidian REST
API), a port that accepts and never answers (a hung service), an imitation of the kg-brain
service that keeps the headers of every request it gets (on a port or a Unix socket), and a relay
to a real service that holds one path's requests back."""

from __future__ import annotations

import json
import select
import socket
import socketserver
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx


@contextmanager
def serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """`http://127.0.0.1:<free port>` answered by `handler` until the block ends."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def hung() -> Iterator[int]:
    """A port on 127.0.0.1 whose server accepts every connection and never answers (a service
    stuck mid-request), until the block ends."""
    listener = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                held.append(listener.accept()[0])
            except OSError:  # the block ended
                return

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield listener.getsockname()[1]
    finally:
        try:
            listener.shutdown(socket.SHUT_RDWR)  # wakes the accepting thread
        except OSError:
            pass
        listener.close()
        for conn in held:
            conn.close()


class UnixHTTPServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


@contextmanager
def imitation(health: dict[str, Any], path: Path | None = None, health_after_s: float = 0.0
              ) -> Iterator[tuple[int | str, list[dict[str, str]]]]:
    """An HTTP server that answers `/health` with `health` (what kg-brain's says), after
    `health_after_s` seconds (a busy service), and every other request `200 {}`, keeping each
    request's line and headers (header names in lower case) in the list it yields beside its
    port, or at the Unix socket `path` when given."""
    seen: list[dict[str, str]] = []

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def answer(self) -> None:
            seen.append({"request": self.requestline,
                         **{k.lower(): v for k, v in self.headers.items()}})
            self.rfile.read(int(self.headers.get("content-length") or 0))
            if self.path == "/health":
                time.sleep(health_after_s)
            body = json.dumps(health if self.path == "/health" else {}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            self.answer()

        def do_POST(self) -> None:
            self.answer()

        def do_DELETE(self) -> None:
            self.answer()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server: socketserver.TCPServer = UnixHTTPServer(str(path), Handler) if path else \
        ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield (str(path) if path else server.server_address[1]), seen
    finally:
        server.shutdown()
        server.server_close()


def closed(connection: socket.socket) -> bool:
    """The client has closed `connection` (it is readable and reads as ended)."""
    readable, _, _ = select.select([connection], [], [], 0)
    try:
        return bool(readable) and connection.recv(1, socket.MSG_PEEK) == b""
    except OSError:
        return True


@contextmanager
def holding(target: str, path: str, hold_s: float) -> Iterator[tuple[str, list[str]]]:
    """`http://127.0.0.1:<free port>` relaying every request to `target` (its method, path,
    headers and body), except that a request for `path` is held `hold_s` seconds first and, when
    its client has gone meanwhile, never relayed (a request its client gave up before it was
    sent): such requests' paths are kept in the list yielded beside the url."""
    dropped: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def relay(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            if self.path == path:
                time.sleep(hold_s)
                if closed(self.connection):
                    dropped.append(self.path)
                    self.close_connection = True
                    return
            headers = {k: v for k, v in self.headers.items() if k.lower() != "host"}
            reply = httpx.request(self.command, target + self.path, headers=headers,
                                  content=body, timeout=120)
            self.send_response(reply.status_code)
            for name in ("content-type", "mcp-session-id"):
                if name in reply.headers:
                    self.send_header(name, reply.headers[name])
            self.send_header("Content-Length", str(len(reply.content)))
            self.end_headers()
            self.wfile.write(reply.content)

        def do_GET(self) -> None:
            self.relay()

        def do_POST(self) -> None:
            self.relay()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    with serving(Handler) as url:
        yield url, dropped
