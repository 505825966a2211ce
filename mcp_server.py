"""kg-brain MCP server entry: `python mcp_server.py` (stdio, what OpenCode spawns) or `--http`.

`mcp` is the FastMCP instance with every tool. Building it reads the settings only: Neo4j and
the embedding model are reached on the first tool call, so `initialize` answers at once.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from kg_brain.base.errors import BrainError
from kg_brain.base.settings import load_settings
from kg_brain.root.app import Brain
from kg_brain.surfaces.tools import build_server
from kg_brain.surfaces.transport import add_serve_arguments, serve

settings = load_settings()
brain = Brain(settings)
mcp = build_server(brain)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    add_serve_arguments(parser)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        return serve(settings, brain, mcp, args.http, args.host, args.port)
    except BrainError as exc:
        sys.stderr.write(f"kg-brain: {exc}\n")
        return 2
    finally:
        brain.close()


if __name__ == "__main__":
    raise SystemExit(main())
