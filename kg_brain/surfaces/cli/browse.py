"""`kg-brain browse`: where Neo4j Browser is and how it opens with the kg-brain guide and style.

The local server kg-brain starts does this by itself (post-connect commands in its conf, content
served beside it). For a server kg-brain does not configure (docker compose, Aura, any
NEO4J_URI), `--serve` serves the same guide and style on loopback and the two commands to type
are printed; `--screenshots DIR` regenerates the README's pictures from the demo project.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from kg_brain.base.errors import InvalidInput
from kg_brain.base.settings import Settings
from kg_brain.store.localdb import docker_engine_available
from kg_brain.store.localdb.content import content_urls, serve_forever
from kg_brain.views.guide import GRASS, write_browser_content


def _out(text: str) -> None:
    sys.stdout.write(text + "\n")


def _host(settings: Settings) -> str:
    if not settings.neo4j_uri:
        return "127.0.0.1"
    return settings.neo4j_uri.split("://", 1)[1].split(":", 1)[0].split("/", 1)[0]


def cmd_browse(args: argparse.Namespace, settings: Settings) -> int:
    if args.screenshots:
        from kg_brain.surfaces.cli.demo import take_screenshots

        for path in take_screenshots(Path(args.screenshots), settings):
            _out(f"wrote {path}")
        return 0
    if args.serve:
        return _serve(settings)
    port = settings.kg_brain_browser_port
    local = not settings.neo4j_uri and not docker_engine_available()
    _out(f"Neo4j Browser: http://{_host(settings)}:{settings.neo4j_http_port}/browser/")
    _out(f"  connect to {settings.neo4j_uri or f'bolt://127.0.0.1:{settings.neo4j_bolt_port}'} "
         f"as {settings.neo4j_user}")
    if local and port:
        _out(f"  it opens with the kg-brain style and guide, served on 127.0.0.1:{port} by "
             "`kg-brain neo4j start`")
    else:
        style, guide = content_urls(port or 8766, "localhost")
        _out("  this server does not open the guide by itself: run `kg-brain browse --serve` "
             "and type in the Browser")
        _out(f"    :style {style}")
        _out(f"    :guide {guide}")
        _out(f"  (or drop {GRASS} on the Browser window for the style alone)")
    _out("")
    _out("The guide's first block picks the most recently used project; to choose one:")
    _out(f"  :param project => '{args.project or settings.kg_brain_project or 'my-project'}'")
    _out("The Browser colours by label only, so note kinds (a property) are not coloured: the "
         "table view's note_kind column and the guide's mistakes step tell them apart.")
    return 0


def _serve(settings: Settings) -> int:
    """Serve the guide and style on loopback until interrupted (for compose, Aura, NEO4J_URI)."""
    port = settings.kg_brain_browser_port
    if not port:
        raise InvalidInput("KG_BRAIN_BROWSER_PORT is 0: set a port to serve the guide")
    with tempfile.TemporaryDirectory(prefix="kg-brain-browser-") as folder:
        write_browser_content(Path(folder))
        style, guide = content_urls(port, "localhost")
        _out(f"Serving the kg-brain guide and style on 127.0.0.1:{port}; in Neo4j Browser run:")
        _out(f"  :style {style}")
        _out(f"  :guide {guide}")
        sys.stdout.flush()
        try:
            serve_forever(Path(folder), port)
        except KeyboardInterrupt:
            pass
    return 0


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("browse", help="Neo4j Browser: its URL and the kg-brain guide and style")
    p.add_argument("--project", help="project for the :param line")
    p.add_argument("--serve", action="store_true",
                   help="serve the guide and style on KG_BRAIN_BROWSER_PORT for a server "
                        "kg-brain does not start (docker compose, Aura)")
    p.add_argument("--screenshots", metavar="DIR",
                   help="regenerate the Browser pictures from the demo project in DIR "
                        "(needs Chromium, chromedriver and Selenium)")
    p.set_defaults(handler=cmd_browse)
