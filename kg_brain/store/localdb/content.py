"""A loopback HTTP server for the Neo4j Browser's remote content: the kg-brain guide and style.

Neo4j Browser fetches `:guide <url>` and `:style <url>` from the page (cross-origin), so every
answer allows any origin, and the preflight the guide fetch triggers (it sends Cache-Control and
Pragma) is answered, including Chrome's private-network check for a page served elsewhere (Aura).
It serves the files of one folder and nothing else, binds 127.0.0.1 only, and is stdlib only so
it starts in a fraction of a second: `python content.py --dir DIR --port PORT`.
"""

from __future__ import annotations

import argparse
import mimetypes
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

GUIDE_FILE = "guide.html"
STYLE_FILE = "kg-brain.grass"
CORS = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": "GET, OPTIONS",
    "Access-Control-Allow-Headers": "*",
    "Access-Control-Allow-Private-Network": "true",
    "Cache-Control": "no-cache",
}


def content_urls(port: int, host: str = "127.0.0.1") -> tuple[str, str]:
    """(style URL, guide URL) of a content server."""
    base = f"http://{host}:{port}"
    return f"{base}/{STYLE_FILE}", f"{base}/{GUIDE_FILE}"


def post_connect_commands(port: int, host: str = "127.0.0.1") -> str:
    """`browser.post_connect_cmd`: apply the style, open the guide (`;` separates commands)."""
    style, guide = content_urls(port, host)
    return f"style {style};guide {guide}"


def handler_for(folder: Path) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_OPTIONS(self) -> None:
            self._answer(204, b"", None)

        def do_GET(self) -> None:
            name = self.path.split("?", 1)[0].lstrip("/")
            path = folder / name
            if "/" in name or not name or not path.is_file():
                self._answer(404, b"not found\n", "text/plain")
                return
            kind = "text/plain" if name.endswith(".grass") else mimetypes.guess_type(name)[0]
            self._answer(200, path.read_bytes(), f"{kind or 'text/plain'}; charset=utf-8")

        def _answer(self, status: int, body: bytes, kind: str | None) -> None:
            self.send_response(status)
            for key, value in CORS.items():
                self.send_header(key, value)
            if kind:
                self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            sys.stderr.write(f"{self.address_string()} {format % args}\n")

    return Handler


def port_open(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex((host, port)) == 0


@dataclass
class ContentServer:
    """The content server as a detached process with a pid file, so it lives as long as the
    Neo4j server beside it, whichever kg-brain process started them."""

    folder: Path
    port: int
    run_dir: Path

    @property
    def pid_file(self) -> Path:
        return self.run_dir / "kg-brain-browser-content.pid"

    def running_pid(self) -> int | None:
        return live_pid(self.pid_file)

    def ensure_running(self, log_file: Path, timeout_s: float = 10.0) -> None:
        if self.running_pid() is not None:
            return
        if port_open(self.port):
            raise OSError(f"port {self.port} on 127.0.0.1 is taken by another process; set "
                          "KG_BRAIN_BROWSER_PORT to another port (0 turns the guide off)")
        self.run_dir.mkdir(parents=True, exist_ok=True)
        cmd = [sys.executable, str(Path(__file__).resolve()), "--dir", str(self.folder),
               "--port", str(self.port)]
        with open(log_file, "ab") as out:
            proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, start_new_session=True)
        self.pid_file.write_text(str(proc.pid), encoding="utf-8")
        deadline = time.monotonic() + timeout_s
        while not port_open(self.port):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise OSError(f"the Browser content server did not start; see {log_file}")
            time.sleep(0.05)

    def stop(self) -> None:
        pid = self.running_pid()
        if pid is not None:
            os.kill(pid, signal.SIGTERM)
            if not wait_exit(pid, 5.0):
                os.kill(pid, signal.SIGKILL)
        self.pid_file.unlink(missing_ok=True)


def live_pid(pid_file: Path) -> int | None:
    """The pid a pid file names, when that process is still alive."""
    try:
        pid = int(pid_file.read_text(encoding="utf-8").strip())
        os.kill(pid, 0)
    except (FileNotFoundError, ValueError, ProcessLookupError):
        return None
    return pid


def wait_exit(pid: int, timeout_s: float) -> bool:
    """Wait for a process to exit, reaping it when it is our child (no zombie left behind)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if os.waitpid(pid, os.WNOHANG)[0]:
                return True
        except ChildProcessError:  # not our child: it is gone once signal 0 fails
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return True
        time.sleep(0.1)
    return False


def serve_forever(folder: Path, port: int, host: str = "127.0.0.1") -> None:
    server = ThreadingHTTPServer((host, port), handler_for(folder))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        server.serve_forever()
    finally:
        server.server_close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dir", required=True, type=Path)
    parser.add_argument("--port", required=True, type=int)
    args = parser.parse_args()
    serve_forever(args.dir, args.port)


if __name__ == "__main__":
    main()
