"""A scripted OpenAI-compatible chat-completions endpoint on 127.0.0.1: a small stdlib HTTP
server, so that the providers' real request, retry, parsing and fallback code runs end to end."""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class ChatServer:
    """Scripted chat-completions endpoint: each request takes the next (status, body, delay)."""

    def __init__(self) -> None:
        self.script: deque[tuple[int, str, float]] = deque()
        self.requests: list[dict[str, Any]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append({"path": self.path, "body": body,
                                        "auth": self.headers.get("Authorization")})
                status, content, delay = server.script.popleft() if server.script else (
                    500, "script exhausted", 0.0)
                time.sleep(delay)
                payload = {"id": "x", "object": "chat.completion", "created": 0,
                           "model": body.get("model"), "choices": [
                               {"index": 0, "finish_reason": "stop",
                                "message": {"role": "assistant", "content": content}}]}
                raw = json.dumps(payload if status == 200 else {"error": content}).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(raw)))
                    self.end_headers()
                    self.wfile.write(raw)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()

    def reply(self, content: str | dict[str, Any], status: int = 200, delay: float = 0.0) -> None:
        text = content if isinstance(content, str) else json.dumps(content)
        self.script.append((status, text, delay))

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
