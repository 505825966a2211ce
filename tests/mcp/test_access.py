"""Access: the HTTP transport checks Host and Origin and needs a bearer token (made on its first
start; none only on loopback, by setting), and the Neo4j password never shows in a ToolError or
a log line, in process or in a spawned server."""

from __future__ import annotations

import logging
import stat
from pathlib import Path

import pytest
from fastmcp.exceptions import ToolError
from starlette.datastructures import Headers

from bench.cold_start import StdioSession
from kg_brain.base.errors import SetupError
from kg_brain.base.private import service_token, token_file
from kg_brain.enrichment.embed import SentenceTransformerEmbedder
from kg_brain.root.app import Brain
from kg_brain.store.localdb import free_port
from kg_brain.surfaces.guard import BearerAuth, LocalOnly, http_middleware, own_hosts
from kg_brain.surfaces.tools import build_server
from tests.support.brains import make_settings
from tests.support.mcp import REPO, call, server_env
from tests.support.neo4j import ServerUnderTest

PASSWORD = "kgb-Pw-7f3e9c1a-" + "do-not-log"
PROBE_USER = "kg-brain-probe"  # a user of its own: failed logins never lock out 'neo4j'


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.20", "10.0.0.7", "example.org",
                                  "my-laptop.local"])
def test_binding_beyond_loopback_without_a_token_is_refused(host: str, tmp_path: Path) -> None:
    with pytest.raises(SetupError, match="KG_BRAIN_HTTP_AUTH=none is for loopback only"):
        http_middleware(make_settings(kg_brain_http_auth="none", kg_brain_data_dir=tmp_path),
                        host, 8765)


@pytest.mark.parametrize("host", ["127.0.0.1", "0.0.0.0", "::1", "localhost", "192.168.1.20"])
def test_every_binding_checks_host_and_origin_then_the_token_made_on_first_start(
        host: str, tmp_path: Path) -> None:
    settings = make_settings(kg_brain_data_dir=tmp_path)
    assert [m.cls for m in http_middleware(settings, host, 8765)] == [LocalOnly, BearerAuth]
    token = token_file(settings)
    assert service_token(settings) == token.read_text().strip()
    assert stat.S_IMODE(token.stat().st_mode) == 0o600
    assert stat.S_IMODE(token.parent.stat().st_mode) == 0o700


def test_without_a_token_loopback_still_checks_host_and_origin(tmp_path: Path) -> None:
    settings = make_settings(kg_brain_http_auth="none", kg_brain_data_dir=tmp_path)
    assert [m.cls for m in http_middleware(settings, "127.0.0.1", 8765)] == [LocalOnly]
    assert service_token(settings) is None and not token_file(settings).exists()


def refusal(headers: dict[str, str], host: str = "127.0.0.1", **allowed: list[str]) -> str | None:
    settings = make_settings(**{f"kg_brain_http_allowed_{k}": v for k, v in allowed.items()})
    guard = LocalOnly(None, own_hosts(settings, host, 8765),  # type: ignore[arg-type]
                      frozenset(settings.kg_brain_http_allowed_origins))
    return guard.refusal(Headers(headers={"host": "127.0.0.1:8765", **headers}))


@pytest.mark.parametrize("headers", [
    {}, {"host": "localhost:8765"}, {"host": "LOCALHOST:8765"}, {"host": "[::1]:8765"},
    {"origin": "http://127.0.0.1:8765"}, {"origin": "http://localhost:5173"},
    {"origin": "https://[::1]:3000"}, {"origin": "http://127.0.0.2"}])
def test_loopback_hosts_and_origins_pass(headers: dict[str, str]) -> None:
    assert refusal(headers) is None


@pytest.mark.parametrize("headers", [
    {"host": "evil.example.com:8765"}, {"host": "127.0.0.1:8766"}, {"host": "127.0.0.1"},
    {"host": "localhost.evil.example.com:8765"}, {"host": ""},
    {"origin": "http://evil.example.com"}, {"origin": "null"},
    {"origin": "http://127.0.0.1.evil.example.com"}, {"origin": "file://"},
    {"origin": "http://[::1"}, {"origin": "ftp://127.0.0.1"}])
def test_foreign_hosts_and_origins_are_refused(headers: dict[str, str]) -> None:
    assert refusal(headers) is not None


def test_the_allow_lists_admit_what_a_user_exposes_on_purpose() -> None:
    proxied = {"host": "brain.example.com", "origin": "https://brain.example.com/"}
    assert refusal(proxied) is not None
    assert refusal(proxied, hosts=["Brain.Example.com"],
                   origins=["https://brain.example.com"]) is None
    assert refusal({"host": "192.168.1.20:8765"}, host="192.168.1.20") is None
    assert refusal({"host": "192.168.1.20:8765"}, host="0.0.0.0") is not None


def failing_uris(neo4j_server: ServerUnderTest) -> list[tuple[str, str]]:
    """(why, uri): wrong credentials on the real server, and nothing listening."""
    return [("auth", neo4j_server.conn.uri), ("refused", f"bolt://127.0.0.1:{free_port()}")]


def test_the_password_is_in_no_error_and_no_log(
        neo4j_server: ServerUnderTest, embedder: SentenceTransformerEmbedder,
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    for why, uri in failing_uris(neo4j_server):
        settings = make_settings(neo4j_uri=uri, neo4j_user=PROBE_USER, neo4j_password=PASSWORD,
                                 neo4j_timeout_s=3)
        brain = Brain(settings, embedder=embedder)
        with pytest.raises(ToolError, match="database unavailable") as error:
            call(build_server(brain), "get_inbox")
        assert PASSWORD not in str(error.value), why
        health = call(build_server(brain), "brain_stats")
        assert health["status"] == "unreachable" and "database unavailable" in health["error"]
        assert PASSWORD not in str(health), why
        assert PASSWORD not in repr(settings) and PASSWORD not in str(settings.model_dump_json(
            exclude={"neo4j_password"}))
    assert caplog.records and PASSWORD not in caplog.text


def test_a_spawned_server_never_prints_the_password(neo4j_server: ServerUnderTest,
                                                    tmp_path: Path) -> None:
    for why, uri in failing_uris(neo4j_server):
        env = server_env(neo4j_server, NEO4J_URI=uri, NEO4J_USER=PROBE_USER,
                         NEO4J_PASSWORD=PASSWORD, NEO4J_TIMEOUT_S="3")
        with StdioSession(REPO / "mcp_server.py", env, tmp_path) as session:
            session.initialize()
            session.request("tools/list", {})  # the warm-up initialize started logs the failure
            reply = session.call_tool("get_inbox", {})
            assert reply["result"]["isError"], why
            assert "database unavailable" in reply["result"]["content"][0]["text"]
            stderr = session.close()
        assert "database unavailable" in stderr or "warm-up" in stderr, why
        assert PASSWORD not in stderr and not any(PASSWORD in line for line in session.lines)
