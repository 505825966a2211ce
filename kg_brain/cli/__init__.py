"""`kg-brain`: a light dispatcher. `kg-brain mcp`, which every stdio client window spawns, must
start in a fraction of a second, so it imports the settings and the relay only, and the rest of
the program (the model, the driver, every command) only when it serves in-process; any other
command loads the full command line (kg_brain/cli/commands.py)."""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence

from kg_brain.relay import MCP_COMMAND


def mcp(verbose: bool = False) -> int:
    from kg_brain.errors import BrainError
    from kg_brain.relay import forward
    from kg_brain.settings import load_settings

    logging.basicConfig(level=logging.DEBUG if verbose else logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        settings = load_settings()
        forwarded = forward(settings)
        if forwarded is not None:
            return forwarded
        from kg_brain.transport import serve_stdio
        return serve_stdio(settings)
    except BrainError as exc:
        sys.stderr.write(f"kg-brain: {exc}\n")
        return 2


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if [a for a in args if a not in ("-v", "--verbose")] == [MCP_COMMAND]:
        return mcp(verbose=len(args) > 1)
    from kg_brain.cli.commands import main as full
    return full(args)
