"""SIGTERM stops a process as Ctrl-C does (kg_brain/root/app.py interrupt_on_sigterm): inside
an asyncio loop the runner cancels its main task and the tasks unwind in order, with no
traceback, even when the signal comes while a task is running Python code."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest

# A loop whose tasks always run Python code, so a signal lands inside one of them; it says
# "ready" once they run, and prints "stopped" when KeyboardInterrupt reaches asyncio.run's caller.
BUSY_LOOP = """
import asyncio, sys
from kg_brain.root.app import interrupt_on_sigterm

async def spin():
    while True:
        sum(range(2000))
        await asyncio.sleep(0)

async def main():
    tasks = [asyncio.create_task(spin()) for _ in range(4)]
    await asyncio.sleep(0.2)
    print("ready", flush=True)
    await asyncio.gather(*tasks)

interrupt_on_sigterm()
try:
    asyncio.run(main())
except KeyboardInterrupt:
    print("stopped", flush=True)
"""


def ignore_sigint() -> None:
    """As a shell starts a background process: SIGINT ignored, which exec keeps."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize("sigint", ["handled", "ignored"])
@pytest.mark.parametrize("run", range(3))
def test_sigterm_in_a_busy_event_loop_unwinds_without_a_traceback(run: int, sigint: str) -> None:
    proc = subprocess.Popen([sys.executable, "-c", BUSY_LOOP], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=ignore_sigint if sigint == "ignored" else None)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "ready"
    time.sleep(0.05 * run)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    assert out.strip() == "stopped", err
    assert "Traceback" not in err, err
    assert proc.returncode == 0


def test_a_process_started_with_sigint_ignored_stops_on_either_signal() -> None:
    script = ("import signal, os, sys\n"
              "from kg_brain.root.app import interrupt_on_sigterm\n"
              "interrupt_on_sigterm()\n"
              "try:\n    os.kill(os.getpid(), getattr(signal, sys.argv[1]))\n    signal.pause()\n"
              "except KeyboardInterrupt:\n    print('stopped')\n")
    for name in ("SIGTERM", "SIGINT"):
        done = subprocess.run([sys.executable, "-c", script, name], capture_output=True,
                              text=True, timeout=30, preexec_fn=ignore_sigint)
        assert done.stdout.strip() == "stopped", (name, done.stderr)
