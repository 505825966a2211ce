"""Cold start of the stdio MCP server, as OpenCode sees it: spawn `python mcp_server.py`, then
time the first `initialize`, `tools/list` and `search_memory` answers, and take the server's
resident memory after listing and once the model is loaded; for each embedding runtime side by
side, in alternating rounds, plus the import-time profile of the server's entry module.

    python -m bench.cold_start [--runs 3] [--runtimes torch onnx onnx-int8] \
        [--out cold_start.json]
    python -m bench.cold_start --relay [--runs 5] [--out cold_start_relay.json]

`--relay` measures what a client window spawns, `kg-brain mcp`, forwarded to a warm shared
service (started first on a free port, its model loaded) against the same command serving
in-process, side by side in alternating rounds.

Uses the configured Neo4j (NEO4J_URI etc.); searches an empty scratch project, so it writes
nothing. The ONNX models are built before timing (a server finds them cached). `StdioSession`
is also the raw client the stdio tests use: it keeps every stdout line.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import statistics
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Any, Self

from bench.common import emit_result, rss_mb

PROTOCOL_VERSION = "2025-06-18"
SERVER = Path(__file__).resolve().parents[1] / "mcp_server.py"
RELAY = [sys.executable, "-m", "kg_brain.surfaces.cli", "mcp"]


class StdioSession:
    """A raw stdio client: `command` is a script run by this interpreter, or a whole argv.
    With `roots` it declares the roots capability and answers `roots/list` with them (file
    paths), as OpenCode does."""

    def __init__(self, command: Path | list[str], env: dict[str, str], cwd: Path,
                 roots: list[Path] | None = None) -> None:
        self.started = time.monotonic()
        argv = command if isinstance(command, list) else [sys.executable, str(command)]
        self.roots = roots
        self.proc = subprocess.Popen(argv, cwd=cwd, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1)
        self.lines: list[str] = []
        self.stderr: list[str] = []
        self._inbox: queue.Queue[str] = queue.Queue()
        self._next_id = 0
        self._pumps = [threading.Thread(target=self._pump, daemon=True),
                       threading.Thread(target=self._drain_stderr, daemon=True)]
        for pump in self._pumps:
            pump.start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line)
            self._inbox.put(line)

    def _drain_stderr(self) -> None:
        assert self.proc.stderr is not None
        self.stderr.extend(self.proc.stderr)

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        self._send({"jsonrpc": "2.0", "method": method, **({"params": params} if params else {})})

    def request(self, method: str, params: dict[str, Any], timeout: float = 120) -> dict[str, Any]:
        self._next_id += 1
        self._send({"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params})
        deadline = time.monotonic() + timeout
        asked = self._next_id
        while True:
            message = json.loads(self._inbox.get(timeout=max(deadline - time.monotonic(), 0.01)))
            if message.get("method") == "roots/list" and "id" in message:
                self._send({"jsonrpc": "2.0", "id": message["id"], "result": {"roots": [
                    {"uri": root.resolve().as_uri(), "name": root.name}
                    for root in self.roots or []]}})
            elif message.get("id") == asked and "method" not in message:
                return message

    def initialize(self) -> dict[str, Any]:
        reply = self.request("initialize", {"protocolVersion": PROTOCOL_VERSION,
                                            "capabilities": {"roots": {}} if self.roots else {},
                                            "clientInfo": {"name": "opencode", "version": "1"}})
        self.notify("notifications/initialized")
        return reply

    def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return self.request("tools/call", {"name": name, "arguments": arguments})

    def _send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def close(self) -> str:
        """End the session as a client does (close stdin); returns stderr."""
        assert self.proc.stdin is not None
        if not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for pump in self._pumps:
            pump.join(timeout=5)
        return "".join(self.stderr)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc.poll() is None:
            self.close()


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process (Linux): wall time on a busy machine overstates a
    cold start, CPU time does not."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return round((int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"), 3)


def measure_once(env: dict[str, str], cwd: Path,
                 command: Path | list[str] = SERVER) -> dict[str, float | None]:
    with StdioSession(command, env, cwd) as session:
        session.initialize()
        t_init = time.monotonic() - session.started
        session.request("tools/list", {})
        t_list = time.monotonic() - session.started
        cpu_list = cpu_seconds(session.proc.pid)
        rss_list = rss_mb(session.proc.pid)
        reply = session.call_tool("search_memory", {"query": "cold start probe", "top_k": 3,
                                                    "project": f"bench-{uuid.uuid4().hex[:8]}"})
        t_search = time.monotonic() - session.started
        rss = rss_mb(session.proc.pid)
        if reply.get("result", {}).get("isError"):
            raise RuntimeError(f"search failed: {reply['result']['content'][0]['text']}")
    return {"initialize_s": round(t_init, 3), "tools_list_s": round(t_list, 3),
            "tools_list_cpu_s": cpu_list, "rss_after_tools_list_mb": rss_list,
            "first_search_s": round(t_search, 3),
            "first_search_after_list_s": round(t_search - t_list, 3),
            "rss_after_first_search_mb": rss}


def import_profile(top: int = 15) -> dict[str, float]:
    """`python -X importtime -c 'import mcp_server'`: milliseconds of import (self time) per
    top-level package, largest first, and the total."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", "import mcp_server"],
                          cwd=SERVER.parent, capture_output=True, text=True, check=True)
    per_package: dict[str, float] = {}
    for line in done.stderr.splitlines():
        fields = line.removeprefix("import time:").split("|")
        if len(fields) != 3 or not fields[0].strip().isdigit():
            continue
        package = fields[2].strip().split(".")[0]
        per_package[package] = per_package.get(package, 0.0) + int(fields[0]) / 1000
    ranked = sorted(per_package.items(), key=lambda kv: -kv[1])
    return {"total": round(sum(per_package.values()), 1),
            **{name: round(ms, 1) for name, ms in ranked[:top]}}


def start_service(env: dict[str, str]) -> subprocess.Popen[bytes]:
    """`kg-brain serve --http` on env's port, answering /health, its model loaded by one
    search (what a service that has served a window is like)."""
    proc = subprocess.Popen([sys.executable, "-m", "kg_brain.surfaces.cli", "serve", "--http"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{env['KG_BRAIN_HTTP_PORT']}/health",
                                   timeout=1).read()
            break
        except urllib.error.HTTPError:  # it answers (asking for the token the relay sends)
            break
        except OSError:
            time.sleep(0.2)
    measure_once({**env, "KG_BRAIN_SERVICE": "true"}, Path.cwd(), RELAY)
    return proc


def relay_main(runs: int, out: Path) -> int:
    """`kg-brain mcp` forwarded to a warm service against `kg-brain mcp` serving in-process,
    in alternating rounds; the service's own memory once the rounds are done."""
    from kg_brain.store.localdb import free_port

    env = {**os.environ, "SCHEDULER_IN_SERVER": "false", "KG_BRAIN_SERVICE_START": "false",
           "KG_BRAIN_HTTP_PORT": str(free_port())}
    modes = {"relay_to_warm_service": {**env, "KG_BRAIN_SERVICE": "true"},
             "in_process": {**env, "KG_BRAIN_SERVICE": "false"}}
    service = start_service(env)
    try:
        results: dict[str, list[dict[str, float | None]]] = {m: [] for m in modes}
        for round_no in range(runs):
            order = list(modes) if round_no % 2 == 0 else list(reversed(modes))
            for mode in order:
                results[mode].append(measure_once(modes[mode], Path.cwd(), RELAY))
        service_rss = rss_mb(service.pid)
    finally:
        service.terminate()
        service.wait(timeout=30)
    median = {mode: {key: statistics.median(r[key] or 0.0 for r in rs) for key in rs[0]}
              for mode, rs in results.items()}
    relay, alone = median["relay_to_warm_service"], median["in_process"]
    report = {"median": median, "runs": results, "service_rss_mb": service_rss,
              "ratio_in_process_to_relay": {k: round(alone[k] / relay[k], 2)
                                            for k in relay if relay[k]},
              "cpus": os.cpu_count(), "load_avg_1m": round(os.getloadavg()[0], 2)}
    emit_result(report, out)
    return 0


def main(argv: list[str] | None = None) -> int:
    from bench.embedding import RUNTIMES, run_child

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="rounds; each runs every runtime")
    parser.add_argument("--runtimes", nargs="+", choices=RUNTIMES, default=list(RUNTIMES))
    parser.add_argument("--relay", action="store_true",
                        help="`kg-brain mcp` forwarded to a warm service vs in-process instead")
    parser.add_argument("--out", type=Path, default=Path("cold_start.json"))
    args = parser.parse_args(argv)
    if args.relay:
        return relay_main(args.runs, args.out)
    for runtime in args.runtimes:  # export (once per cache) before anything is timed
        run_child(runtime, 1, 1)
    runs: dict[str, list[dict[str, float | None]]] = {r: [] for r in args.runtimes}
    for round_no in range(args.runs):
        order = args.runtimes if round_no % 2 == 0 else list(reversed(args.runtimes))
        for runtime in order:
            env = {**os.environ, "SCHEDULER_IN_SERVER": "false", "EMBEDDING_RUNTIME": runtime}
            runs[runtime].append(measure_once(env, Path.cwd()))
    report = {"median": {runtime: {key: statistics.median(r[key] or 0.0 for r in rs)
                                   for key in rs[0]} for runtime, rs in runs.items()},
              "runs": runs, "import_profile_ms": import_profile(), "cpus": os.cpu_count(),
              "load_avg_1m": round(os.getloadavg()[0], 2)}
    emit_result(report, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
