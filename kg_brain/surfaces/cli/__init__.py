"""`kg-brain`: a light dispatcher. `kg-brain mcp`, which every stdio client window spawns, must
start in a fraction of a second, so it imports the settings and the relay only, and the rest of
the program (the model, the driver, every command) only when it serves in-process;
`kg-brain service ...` is as light (kg_brain/surfaces/cli/service.py); any other command loads the
full command line (kg_brain/surfaces/cli/commands.py)."""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence

from kg_brain.surfaces.relay import MCP_COMMAND, TOOLS_OPTION

SERVICE_COMMAND = "service"
VERBOSE = ("-v", "--verbose")


def mcp_options(args: list[str]) -> tuple[bool, str | None] | None:
    """`mcp [--tools PROFILE] [-v]`: (verbose, the profile or None); None for another command."""
    rest = [a for a in args if a not in VERBOSE]
    if rest[:1] != [MCP_COMMAND]:
        return None
    if rest[1:] == []:
        return len(rest) < len(args), None
    if len(rest) == 3 and rest[1] == TOOLS_OPTION:
        return len(rest) < len(args), rest[2]
    return None


def mcp(verbose: bool = False, tools: str | None = None) -> int:
    from kg_brain.base.errors import BrainError
    from kg_brain.base.settings import load_settings
    from kg_brain.surfaces.relay import forward

    logging.basicConfig(level=logging.DEBUG if verbose else logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        settings = load_settings(**({"kg_brain_tools": tools} if tools else {}))
        forwarded = forward(settings)
        if forwarded is not None:
            return forwarded
        from kg_brain.surfaces.transport import serve_stdio
        return serve_stdio(settings)
    except BrainError as exc:
        sys.stderr.write(f"kg-brain: {exc}\n")
        return 2


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    from kg_brain.surfaces.machine import refresh
    for path in refresh():
        sys.stderr.write(f"kg-brain: {path} named an older module path; rewritten\n")
    options = mcp_options(args)
    if options is not None:
        return mcp(*options)
    if args[:1] == [SERVICE_COMMAND]:
        from kg_brain.surfaces.cli.service import main as service
        return service(args)
    from kg_brain.surfaces.cli.commands import main as full
    return full(args)
