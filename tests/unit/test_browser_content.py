"""The content server beside the local Neo4j (a real process on a free port) and the guide it
serves: what Neo4j Browser needs to fetch and run them."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from kg_brain.base.cypher import all_query_names
from kg_brain.store.localdb import free_port
from kg_brain.store.localdb.content import ContentServer, content_urls
from kg_brain.views.guide import GRASS, STEPS, guide_html, write_browser_content

ORIGIN = {"Origin": "http://127.0.0.1:7474"}


@pytest.fixture
def content(tmp_path: Path) -> Iterator[ContentServer]:
    write_browser_content(tmp_path / "browser")
    server = ContentServer(tmp_path / "browser", free_port(), tmp_path / "run")
    server.ensure_running(tmp_path / "content.log")
    yield server
    server.stop()


def test_style_and_guide_are_served_to_any_origin(content: ContentServer) -> None:
    style_url, guide_url = content_urls(content.port)
    style = httpx.get(style_url, headers=ORIGIN)
    assert style.status_code == 200 and style.text == GRASS.read_text(encoding="utf-8")
    assert style.headers["access-control-allow-origin"] == "*"
    guide = httpx.get(guide_url, headers=ORIGIN)
    assert guide.status_code == 200 and "<carousel" in guide.text
    assert guide.headers["content-type"].startswith("text/html")


def test_the_guide_fetch_preflight_is_answered(content: ContentServer) -> None:
    """The Browser fetches guides with Cache-Control and Pragma headers: a CORS preflight."""
    _, guide_url = content_urls(content.port)
    answer = httpx.options(guide_url, headers=ORIGIN | {
        "Access-Control-Request-Method": "GET",
        "Access-Control-Request-Headers": "cache-control,pragma",
        "Access-Control-Request-Private-Network": "true"})
    assert answer.status_code == 204
    assert answer.headers["access-control-allow-headers"] == "*"
    assert answer.headers["access-control-allow-private-network"] == "true"


def test_nothing_outside_the_folder_is_served(content: ContentServer) -> None:
    base = f"http://127.0.0.1:{content.port}"
    for path in ("/../run/kg-brain-browser-content.pid", "/%2e%2e/content.log", "/", "/nope"):
        assert httpx.get(base + path).status_code == 404


def test_stop_ends_the_process_and_frees_the_port(content: ContentServer) -> None:
    pid = content.running_pid()
    assert pid is not None
    content.stop()
    assert content.running_pid() is None
    with pytest.raises(httpx.ConnectError):
        httpx.get(content_urls(content.port)[0])


def test_a_second_start_reuses_the_running_server(content: ContentServer, tmp_path: Path) -> None:
    pid = content.running_pid()
    content.ensure_running(tmp_path / "content.log")
    assert content.running_pid() == pid


def test_the_guide_runs_every_saved_graph_query_once() -> None:
    html = guide_html()
    ran = re.findall(r'data-query="([^"]+)"', html)
    assert sorted(ran) == sorted(f"browser/{s.query}" for s in STEPS)
    pickers = {n for n in all_query_names() if n.startswith("browser/pick_")}
    assert set(ran) | pickers == {n for n in all_query_names() if n.startswith("browser/")}


def test_guide_blocks_survive_the_browser_s_cleaning() -> None:
    """Neo4j Browser strips on* attributes and ignores clicks on commands ending in ' null'."""
    html = guide_html()
    blocks = re.findall(r'<pre class="runnable"[^>]*>(.*?)</pre>', html, flags=re.S)
    assert len(blocks) == len(STEPS) + sum(len(s.params) for s in STEPS) + 1
    assert not any(b.strip().endswith((" null", ":null")) for b in blocks)
    assert not re.search(r"\s+on[^\s=]+\s*=", html)
