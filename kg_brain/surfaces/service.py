"""The shared service's lifecycle: started detached, found by its pid file, stopped on request
or when idle.

A client window (`kg-brain mcp`) that finds no service starts one that must outlive it: clients
end a window by killing its process tree, so the service is started through a short-lived
launcher (it ends at once, leaving the service a child of init rather than of the window), in a
session and process group of its own, with no pipe of the window's: stdin is /dev/null and its
output goes to `service.log` in the state folder.

One service starts however many clients race to start one (the relay of each window, the OpenCode
plugin through `kg-brain service start`): a starter takes the start lock (`service.lock`, an
exclusive flock) without waiting, and a starter that finds it taken, or the port already
listening, starts nothing. The service it starts inherits the lock and lets it go once it listens
(or when it exits), so no second start slips in while the first is loading. The port is the
arbiter beyond that (a `kg-brain serve --http` run by hand takes no lock): a service binds it
before anything else, and one that cannot exits at once with PORT_HELD (a user unit does not
restart it for that). The service writes `service.pid` only once it listens and removes it when
it stops, `kg-brain service stop` signals it, and with
KG_BRAIN_SERVICE_IDLE_S set it stops itself once no request has been in flight for that long (an
open window keeps a stream open, so it counts as activity).

This machine's clients (the relay, the OpenCode plugin) reach it through `service-<port>.sock`, a
Unix socket in the state folder (0700), never through the port: any account can listen on a free
port, only this user can reach into that folder, so the token they send goes to this user's
service and nobody else. The port serves what is wired with `--url`. Standard library only (and
kg_brain/base/private.py): the relay imports this module.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from kg_brain.base.errors import SetupError
from kg_brain.base.private import private_dir
from kg_brain.base.settings import Settings
from kg_brain.surfaces.machine import COMMAND_MODULE

log = logging.getLogger(__name__)
PID_FILE = "service.pid"
LOG_FILE = "service.log"
LOCK_FILE = "service.lock"
SOCKET_FILE = "service-{port}.sock"  # where this machine's clients reach the port's service
PORT_HELD = 98  # the exit status of a service whose port another process holds (EADDRINUSE's errno)
SERVE = ["-m", COMMAND_MODULE, "serve", "--http"]
START_LOCK_OPTION = "--start-lock-fd"  # the inherited start lock, let go once the service listens
# The launcher starts the service and exits, so the service is reparented away from the window;
# its first argument is the start lock's descriptor, which the service inherits.
LAUNCHER = ("import subprocess, sys; "
            "subprocess.Popen(sys.argv[2:], pass_fds=(int(sys.argv[1]),))")
CONNECT_TIMEOUT_S = 0.5
BACKLOG = 2048
STOP_WAIT_S = 30.0


def state_folder(settings: Settings) -> Path:
    """The state folder, private to the user (it holds the service's token and socket)."""
    return private_dir(settings.state_dir)


def socket_path(settings: Settings, port: int | None = None) -> Path:
    """The socket of the service on `port` (default: the settings' port)."""
    return settings.state_dir / SOCKET_FILE.format(port=port or settings.kg_brain_http_port)


def log_path(settings: Settings) -> Path:
    return settings.state_dir / LOG_FILE


def serve_command() -> list[str]:
    """This installation's interpreter running the shared HTTP service."""
    return [sys.executable, *SERVE]


def spawn(settings: Settings) -> bool:
    """Start `kg-brain serve --http` detached from this process (see the module docstring),
    unless another start is under way or a service listens already; True when this call
    started one. Returns once the launcher has exited, not once the service answers."""
    with start_lock(settings) as lock:
        if lock is None:
            log.info("the shared kg-brain service is being started by another client")
            return False
        if listening(settings):
            log.info("the shared kg-brain service is up already: not starting another")
            return False
        with open(log_path(settings), "ab") as out:
            os.chmod(out.name, 0o600)
            fd = str(lock.fileno())
            subprocess.run([sys.executable, "-c", LAUNCHER, fd, *serve_command(),
                            START_LOCK_OPTION, fd], cwd=settings.state_dir,
                           stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                           pass_fds=(lock.fileno(),), start_new_session=True, check=False,
                           timeout=30)
    log.info("started the shared kg-brain service in the background (log: %s)",
             log_path(settings))
    return True


def client_host(settings: Settings) -> str:
    """The address a client on this machine reaches the service at."""
    host = settings.kg_brain_http_host
    return "127.0.0.1" if host in ("0.0.0.0", "::", "localhost") else host


def listening(settings: Settings) -> bool:
    """Whether something accepts connections on the service's port (answering or not)."""
    try:
        with socket.create_connection((client_host(settings), settings.kg_brain_http_port),
                                      timeout=CONNECT_TIMEOUT_S):
            return True
    except OSError:
        return False


def bind(host: str, port: int) -> socket.socket:
    """The service's listening socket, bound before the service does anything else: of two
    services started at once, the second's bind fails (OSError, EADDRINUSE) and it exits.
    Made with its protocol named (IPPROTO_TCP): the connections it accepts inherit it, and
    asyncio turns Nagle's algorithm off (TCP_NODELAY) only on sockets whose protocol says TCP;
    with Nagle on, an answer's body waits for the client's delayed ACK of its headers (~40 ms)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(BACKLOG)  # Linux lets two SO_REUSEADDR sockets bind until one listens
    except OSError:
        sock.close()
        raise
    return sock


def bind_socket(settings: Settings, port: int) -> socket.socket:
    """The Unix socket of the service on `port`, bound once it holds the port (so a socket left
    by a service that died is its to replace): in the private state folder, itself 0600."""
    path = socket_path(settings, port)
    state_folder(settings)
    if path.is_socket():
        path.unlink()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(str(path))
        os.chmod(path, 0o600)
        sock.listen(BACKLOG)
    except OSError as exc:
        sock.close()
        raise SetupError(f"cannot listen on {path} ({exc}): set KG_BRAIN_DATA_DIR to a shorter "
                         "path (a Unix socket's path has at most 107 bytes)") from None
    return sock


@contextmanager
def start_lock(settings: Settings) -> Iterator[IO[bytes] | None]:
    """The start lock, taken without waiting; None when another client holds it."""
    with open(state_folder(settings) / LOCK_FILE, "ab") as lock:
        try:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield None
            return
        yield lock


def port_held(settings: Settings) -> bool:
    """Something accepts on the port, yet no service of this user is recorded on it (a busy one
    that did not answer in time is) and no client is starting one (none holds the start lock):
    asked when none answers at the socket, another program holds the port."""
    recorded = read_pid(settings)
    pid = recorded.get("pid")
    if not listening(settings) or (recorded.get("port") == settings.kg_brain_http_port
                                   and isinstance(pid, int) and alive(pid)):
        return False
    with start_lock(settings) as lock:
        return lock is not None


def release_start_lock(fd: int | None) -> None:
    """The service listens: let other clients start one again (they will find it instead)."""
    if fd is not None:
        try:
            os.close(fd)
        except OSError:
            pass


def write_pid(settings: Settings, port: int) -> Path:
    """Called by the service itself once it listens."""
    path = state_folder(settings) / PID_FILE
    tmp = path.with_name(PID_FILE + ".tmp")
    tmp.write_text(json.dumps({"pid": os.getpid(), "port": port}), encoding="utf-8")
    tmp.replace(path)
    return path


def remove_pid(settings: Settings) -> None:
    """Remove the pid file if it is still this process's (a newer service may have replaced it)."""
    if read_pid(settings).get("pid") == os.getpid():
        (settings.state_dir / PID_FILE).unlink(missing_ok=True)


def remove_socket(settings: Settings, port: int) -> None:
    """The service on `port` stopped: its socket goes (only a service holding the port binds
    that socket, so it is still this one's, whatever the pid file says now)."""
    socket_path(settings, port).unlink(missing_ok=True)


def read_pid(settings: Settings) -> dict[str, Any]:
    try:
        found = json.loads((settings.state_dir / PID_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def stop(pid: int, wait_s: float = STOP_WAIT_S) -> bool:
    """SIGTERM (the service closes in order), then wait for it to be gone; True once it is."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return True
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.1)
    return not alive(pid)


class Idleness:
    """How long the service has had no request in flight (streams included)."""

    def __init__(self) -> None:
        self.in_flight = 0
        self.last = time.monotonic()
        self.lock = threading.Lock()

    def enter(self) -> None:
        with self.lock:
            self.in_flight += 1

    def leave(self) -> None:
        with self.lock:
            self.in_flight -= 1
            self.last = time.monotonic()

    def idle_for(self) -> float:
        with self.lock:
            return 0.0 if self.in_flight else time.monotonic() - self.last

    def stop_after(self, idle_s: float) -> threading.Thread:
        """A thread that interrupts this process (as SIGTERM does, so it closes in order) once
        it has been idle for `idle_s` seconds."""
        def watch() -> None:
            while self.idle_for() < idle_s:
                time.sleep(min(max(idle_s / 4, 0.2), 5.0))
            log.info("no request for %.0f s: stopping (KG_BRAIN_SERVICE_IDLE_S)", idle_s)
            os.kill(os.getpid(), signal.SIGTERM)

        thread = threading.Thread(target=watch, daemon=True, name="kg-brain-idle")
        thread.start()
        return thread


class Activity:
    """ASGI middleware: every HTTP request but `skip` (the `/health` probe) is activity."""

    def __init__(self, app: Any, idleness: Idleness, skip: str) -> None:
        self.app = app
        self.idleness = idleness
        self.skip = skip

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("path") == self.skip:
            await self.app(scope, receive, send)
            return
        self.idleness.enter()
        try:
            await self.app(scope, receive, send)
        finally:
            self.idleness.leave()
