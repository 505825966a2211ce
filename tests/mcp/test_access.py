"""Access: the HTTP transport needs a bearer token whenever it is bound beyond loopback, and the
Neo4j password never shows in a ToolError or a log line, in process or in a spawned server."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from fastmcp.exceptions import ToolError

from kg_brain.app import Brain
from kg_brain.bench.cold_start import StdioSession
from kg_brain.embed import SentenceTransformerEmbedder
from kg_brain.errors import SetupError
from kg_brain.localdb import free_port
from kg_brain.tools import build_server
from kg_brain.transport import BearerAuth, http_middleware
from tests.support.brains import make_settings
from tests.support.mcp import REPO, call, server_env
from tests.support.neo4j import ServerUnderTest

PASSWORD = "kgb-Pw-7f3e9c1a-" + "do-not-log"
PROBE_USER = "kg-brain-probe"  # a user of its own: failed logins never lock out 'neo4j'


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.20", "10.0.0.7", "example.org",
                                  "my-laptop.local"])
def test_binding_beyond_loopback_without_a_token_is_refused(host: str) -> None:
    with pytest.raises(SetupError, match="KG_BRAIN_HTTP_TOKEN"):
        http_middleware(make_settings(), host)


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "::1", "localhost"])
def test_loopback_needs_no_token_and_a_set_token_is_always_enforced(host: str) -> None:
    assert http_middleware(make_settings(), host) == []
    enforced = http_middleware(make_settings(kg_brain_http_token="t0k3n-abc"), host)
    assert [m.cls for m in enforced] == [BearerAuth]


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
            session.request("tools/list", {})  # starts the warm-up, which logs the failure
            reply = session.call_tool("get_inbox", {})
            assert reply["result"]["isError"], why
            assert "database unavailable" in reply["result"]["content"][0]["text"]
            stderr = session.close()
        assert "database unavailable" in stderr or "warm-up" in stderr, why
        assert PASSWORD not in stderr and not any(PASSWORD in line for line in session.lines)
