"""`kg-brain service start|stop|status|install`: the shared HTTP service that client windows
forward to, run detached (as `kg-brain mcp` starts it), stopped, or installed as a user unit
(systemd on Linux, launchd on macOS) that starts it at login."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

from kg_brain.base.errors import BrainError
from kg_brain.base.settings import Settings, load_settings, user_config_file
from kg_brain.surfaces.relay import probe, serves_this_window, service_url, wait_for_service
from kg_brain.surfaces.service import (
    PORT_HELD,
    alive,
    log_path,
    port_held,
    read_pid,
    serve_command,
    socket_path,
    spawn,
    stop,
)

UNIT = "kg-brain.service"
AGENT = "dev.kg-brain.service"


def _out(text: str) -> None:
    sys.stdout.write(text + "\n")


def running_pid(settings: Settings) -> int | None:
    """The pid of the service on this port: what /health reports, else the pid file's."""
    found = probe(settings)
    if found is not None and serves_this_window(found, settings):
        return int(found["pid"])
    recorded = read_pid(settings)
    pid = recorded.get("pid")
    if isinstance(pid, int) and recorded.get("port") == settings.kg_brain_http_port \
            and alive(pid):
        return pid
    return None


def cmd_service(args: argparse.Namespace, settings: Settings) -> int:
    pid = running_pid(settings)
    if args.action == "status":
        _out(json.dumps({"running": pid is not None, "pid": pid, "url": service_url(settings),
                         "socket": str(socket_path(settings)), "log": str(log_path(settings))},
                        indent=2))
        return 0 if pid is not None else 1
    if args.action == "stop":
        if pid is None:
            _out("not running")
            return 0
        stopped = stop(pid)
        _out(f"stopped (pid {pid})" if stopped else f"pid {pid} did not stop in time")
        return 0 if stopped else 1
    if args.action == "install":
        return install(settings, args.platform)
    if pid is not None:
        _out(f"already running (pid {pid}) at {service_url(settings)}")
        return 0
    if port_held(settings):
        _out(f"port {settings.kg_brain_http_port} is held by a program that is not your "
             f"kg-brain service (none answers at {socket_path(settings)}): nothing is sent to "
             "it and no service starts; free the port or set KG_BRAIN_HTTP_PORT")
        return PORT_HELD
    spawn(settings)
    if not wait_for_service(settings):
        _out(f"the service did not answer; see {log_path(settings)}")
        return 1
    _out(f"running (pid {running_pid(settings)}) at {service_url(settings)}; "
         f"log: {log_path(settings)}")
    return 0


def systemd_unit() -> str:
    """Restarted after a failure, but not when another process holds the port (PORT_HELD), and
    at most 5 times in 10 minutes."""
    command = " ".join(serve_command())
    return ("[Unit]\nDescription=kg-brain shared MCP service\n"
            "After=network.target\nStartLimitIntervalSec=600\nStartLimitBurst=5\n\n"
            f"[Service]\nType=simple\nExecStart={command}\nRestart=on-failure\nRestartSec=5\n"
            f"RestartPreventExitStatus={PORT_HELD}\n\n"
            "[Install]\nWantedBy=default.target\n")


def launchd_agent(settings: Settings) -> str:
    """Started at login and again only when it crashed (launchd has no status to spare, so an
    exit, PORT_HELD included, is final)."""
    args = "".join(f"    <string>{part}</string>\n" for part in serve_command())
    log = log_path(settings)
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" '
            '"http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n<plist version="1.0">\n<dict>\n'
            f"  <key>Label</key><string>{AGENT}</string>\n"
            f"  <key>ProgramArguments</key>\n  <array>\n{args}  </array>\n"
            "  <key>RunAtLoad</key><true/>\n  <key>KeepAlive</key><dict>"
            "<key>Crashed</key><true/></dict>\n"
            f"  <key>StandardOutPath</key><string>{log}</string>\n"
            f"  <key>StandardErrorPath</key><string>{log}</string>\n</dict>\n</plist>\n")


def install(settings: Settings, platform: str) -> int:
    """Write the unit (or agent) file and say how to enable it; nothing is enabled here."""
    if platform == "launchd":
        path = Path.home() / "Library" / "LaunchAgents" / f"{AGENT}.plist"
        text, enable = launchd_agent(settings), f"launchctl load -w {path}"
    else:
        path = user_config_file().parents[1] / "systemd" / "user" / UNIT
        text, enable = systemd_unit(), f"systemctl --user daemon-reload && " \
                                       f"systemctl --user enable --now {UNIT}"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    _out(f"wrote {path}\nstart it now and at each login: {enable}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """`kg-brain --help` lists it; kg_brain/surfaces/cli dispatches it here before loading the
    rest."""
    add_arguments(sub.add_parser("service", help="start, stop, inspect or install the shared "
                                 "service", description=__doc__))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=["start", "stop", "status", "install"])
    parser.add_argument("--platform", choices=["systemd", "launchd"],
                        default="launchd" if sys.platform == "darwin" else "systemd",
                        help="install: the unit kind (default: this system's)")
    parser.set_defaults(handler=cmd_service)


def main(argv: Sequence[str]) -> int:
    """`kg-brain service ...` without the rest of the program (no model, driver or MCP library)."""
    parser = argparse.ArgumentParser(prog="kg-brain", description=__doc__)
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging (stderr)")
    add_arguments(parser.add_subparsers(dest="command", required=True).add_parser("service"))
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        return cmd_service(args, load_settings())
    except BrainError as exc:
        sys.stderr.write(f"kg-brain: {exc}\n")
        return 2
