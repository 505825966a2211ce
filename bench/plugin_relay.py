"""A timing relay in front of a kg-brain service, for bench/plugin_workload.py: each plugin
action as the plugin saw it (plus one loopback hop), the service's answers to `close`, and when
the plugin's requests have settled."""

from __future__ import annotations

import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from threading import Lock, Thread
from typing import Any

import httpx

KEEP_ALIVE_S = 2.0


class Relay:
    """A timing relay in front of the service: what each plugin action took as the plugin saw
    it (plus one loopback hop), and /health through the same hop."""

    def __init__(self, target: str) -> None:
        self.target = target
        self.samples: dict[str, list[float]] = {}
        self.unread: list[str] = []  # actions whose answer came after the plugin's process ended
        self.unanswered: list[str] = []  # actions the service gave no answer to (the plugin: 502)
        self.closes: list[dict[str, Any]] = []  # the service's answers to `close`
        self.busy = 0  # requests under way
        self.lock = Lock()
        self.last = time.monotonic()  # when the last one ended
        # An idle connection is let go before the service's own keep-alive (uvicorn's 5 s) can
        # close it under a request sent on it, which then gets no answer at all.
        self.client = httpx.Client(timeout=120, limits=httpx.Limits(keepalive_expiry=KEEP_ALIVE_S))
        relay = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                """Quiet."""

            def do_GET(self) -> None:
                self.forward("GET", b"")

            def do_POST(self) -> None:
                self.forward("POST", self.rfile.read(int(self.headers["Content-Length"] or 0)))

            def forward(self, method: str, body: bytes) -> None:
                with relay.lock:
                    relay.busy += 1
                try:
                    self.relayed(method, body)
                finally:
                    with relay.lock:
                        relay.busy -= 1
                        relay.last = time.monotonic()

            def relayed(self, method: str, body: bytes) -> None:
                began = time.perf_counter()
                action = self.path.rsplit("/", 1)[-1]
                try:
                    reply = relay.client.request(method, relay.target + self.path, content=body,
                                                 headers={k: v for k, v in self.headers.items()
                                                          if k.lower() in ("authorization",
                                                                           "content-type")})
                except httpx.TransportError:
                    relay.unanswered.append(action)
                    self.send_error(502)
                    return
                ms = (time.perf_counter() - began) * 1000
                relay.samples.setdefault(action, []).append(ms)
                if action == "close" and reply.status_code == 200:
                    relay.closes.append(reply.json())
                self.send_response(reply.status_code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(reply.content)))
                self.end_headers()
                try:
                    self.wfile.write(reply.content)
                except BrokenPipeError:  # the plugin's process ended first: the write is done
                    relay.unread.append(self.path.rsplit("/", 1)[-1])

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        Thread(target=self.server.serve_forever, daemon=True).start()

    def settle(self, quiet_s: float = 0.5, most_s: float = 60) -> None:
        """Until no plugin request has been under way for `quiet_s` (the idle's handoff)."""
        deadline = time.monotonic() + most_s
        while time.monotonic() < deadline and (
                self.busy or time.monotonic() - self.last < quiet_s):
            time.sleep(0.1)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.client.close()
