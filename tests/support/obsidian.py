"""A stand-in for Obsidian's Local REST API plugin on loopback: it takes what the mirror's REST
target sends (`PUT`/`DELETE /vault/<path>`), keeps the files, and records every write, so a
test can read a note's file or count how many times it was written, whichever process wrote it.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.support.loopback import serving


class Vault:
    """The files by request path, the Authorization header of each write, and `fail` to answer
    500 to writes."""

    def __init__(self) -> None:
        self.files: dict[str, str] = {}
        self.auth: list[str] = []
        self.written: list[str] = []  # the path of every successful PUT, in order
        self.fail = False
        self.lock = threading.Lock()

    def puts(self) -> Counter[str]:
        """How many times each note's file was written, by its zk_id."""
        with self.lock:
            return Counter(path.rsplit("/", 1)[-1].removesuffix(".md") for path in self.written)


def _handler(vault: Vault) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            """Quiet: the vault's records are the log."""

        def do_PUT(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"])).decode("utf-8")
            with vault.lock:
                vault.auth.append(self.headers.get("Authorization", ""))
                if not vault.fail:
                    vault.files[self.path] = body
                    vault.written.append(self.path)
            self.send_response(500 if vault.fail else 204)
            self.end_headers()

        def do_DELETE(self) -> None:
            with vault.lock:
                vault.files.pop(self.path, None)
            self.send_response(204)
            self.end_headers()

    return Handler


@contextmanager
def rest_api() -> Iterator[tuple[Vault, str]]:
    """The vault and its base URL (OBSIDIAN_HOST) until the block ends."""
    vault = Vault()
    with serving(_handler(vault)) as url:
        yield vault, url
