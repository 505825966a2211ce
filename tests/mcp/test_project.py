"""Project identity when the agent does not name one: the client's roots, then what the request
names, then the setting, then the server's repository, then 'general'. Roots are asked once per
MCP session. Workspaces are real git repositories (bench/repos.py); identity itself is
tested in tests/unit/test_workspace_identity.py, its agreement across every path in
tests/mcp/test_project_identity.py."""

from __future__ import annotations

import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client, FastMCP
from fastmcp.client.transports import StdioTransport, StreamableHttpTransport
from fastmcp.exceptions import ToolError
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp.types import Root

from bench.repos import repository
from kg_brain.root.app import Brain
from kg_brain.store.localdb import free_port
from kg_brain.surfaces import project as project_module
from kg_brain.surfaces.project import claimer, project_from_roots, resolve_project
from kg_brain.surfaces.wire import workspace_url
from tests.mcp.test_http import http_server
from tests.support.brains import make_settings
from tests.support.mcp import REPO, server_env
from tests.support.neo4j import ServerUnderTest


def workspace(base: Path, name: str) -> Path:
    """A git repository called `name`; returns a folder inside it, as an editor's root may be."""
    (repository(base / name) / "src").mkdir()
    return base / name / "src"


def no_claim(_: Any) -> str:
    raise AssertionError("no identity should be claimed")


def inbox_projects(target: Any, roots: Any, calls: int = 1, mode: str = "legacy") -> list[str]:
    """The project each of `calls` get_inbox calls in one client session answered for."""

    async def run() -> list[str]:
        async with Client(target, roots=roots, mode=mode) as client:
            return [str((await client.call_tool("get_inbox", {"limit": 1})
                         ).structured_content["project"]) for _ in range(calls)]

    return anyio.run(run)


def test_the_setting_wins_over_the_workspace(tmp_path: Path) -> None:
    repository(tmp_path / "shop")
    settings = make_settings(kg_brain_project="billing")
    assert resolve_project(settings, None, no_claim, tmp_path / "shop") == "billing"


def test_the_repository_names_the_project_from_any_subfolder(
        brain: Brain, project: str, tmp_path: Path) -> None:
    inside = workspace(tmp_path, f"{project} shop!") / "api"
    inside.mkdir()
    settings = make_settings(kg_brain_project=None)
    claim = claimer(brain.projects)
    assert resolve_project(settings, None, claim, inside) == f"{project}-shop"
    assert resolve_project(settings, None, claim, inside.parent.parent) == f"{project}-shop"


def test_outside_a_repository_the_servers_project_is_general(tmp_path: Path) -> None:
    assert resolve_project(make_settings(kg_brain_project=None), "  ", no_claim, tmp_path) == \
        "general"


def test_an_explicit_project_is_used_as_given(tmp_path: Path) -> None:
    assert resolve_project(make_settings(kg_brain_project="x"), "shop", no_claim, tmp_path) == \
        "shop"


def test_a_root_is_named_by_its_repository_else_by_itself(tmp_path: Path) -> None:
    inside = workspace(tmp_path, "my shop")
    named = project_from_roots([Root(uri=inside.as_uri())])
    assert named is not None and named.name == "my-shop" and named.id.startswith("git:")
    elsewhere = project_from_roots([Root(uri="file:///srv/elsewhere/billing%20api")])
    assert elsewhere is not None and elsewhere.name == "billing-api"
    first = project_from_roots([Root(uri=(tmp_path / "scratch").as_uri()),
                                Root(uri=inside.as_uri())])
    assert first is not None and first.name == "scratch"
    assert project_from_roots([Root(uri="file:///")]) is None
    assert project_from_roots([]) is None


def test_the_clients_root_names_the_project_over_the_setting(
        server: FastMCP, project: str, tmp_path: Path) -> None:
    root = workspace(tmp_path, f"{project}-ws").as_uri()
    assert inbox_projects(server, [root], calls=2) == [f"{project}-ws"] * 2


def test_a_client_without_roots_gets_the_setting(server: FastMCP, project: str) -> None:
    assert inbox_projects(server, None) == [project]


def test_roots_are_asked_once_per_session_and_again_when_they_change(
        server: FastMCP, project: str, tmp_path: Path) -> None:
    folders = [workspace(tmp_path, f"{project}-a"), workspace(tmp_path, f"{project}-b")]
    asked: list[int] = []

    def roots(_: Any) -> list[str]:
        asked.append(1)
        return [folders[min(len(asked), 2) - 1].as_uri()]

    async def run() -> list[str]:
        async with Client(server, roots=roots, mode="legacy") as client:
            seen = [await inbox_project(client), await inbox_project(client)]
            with pytest.warns(MCPDeprecationWarning):  # deprecated in the 2026 protocol only
                await client.session.send_roots_list_changed()
            return [*seen, await inbox_project(client)]

    assert anyio.run(run) == [f"{project}-a", f"{project}-a", f"{project}-b"]
    assert len(asked) == 2


async def inbox_project(client: Client) -> str:
    return str((await client.call_tool("get_inbox", {"limit": 1})).structured_content["project"])


def failing_roots(_: Any) -> list[str]:
    raise RuntimeError("no workspace here")


async def slow_roots(_: Any) -> list[str]:
    await anyio.sleep(5)
    return ["file:///never/used"]


@pytest.mark.parametrize("handler", [failing_roots, slow_roots], ids=["failing", "slow"])
def test_a_failing_or_slow_roots_answer_falls_back_to_the_setting(
        server: FastMCP, project: str, handler: Callable[[Any], Any],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(project_module, "ROOTS_TIMEOUT_S", 0.3)
    assert inbox_projects(server, handler) == [project]


def test_a_2026_session_without_a_back_channel_falls_back_to_the_setting(
        server: FastMCP, project: str, tmp_path: Path) -> None:
    root = workspace(tmp_path, f"{project}-ws").as_uri()
    assert inbox_projects(server, [root], mode="auto") == [project]


SERVICE_REPO = f"test-{uuid.uuid4().hex[:12]}-kg"


@pytest.fixture(scope="module")
def kg_service(neo4j_server: ServerUnderTest,
               tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The URL of one HTTP service for the module, started in a repository of its own; each
    test's clients name projects of their own."""
    server_dir = repository(tmp_path_factory.mktemp("service") / SERVICE_REPO)
    env = server_env(neo4j_server, KG_BRAIN_HTTP_AUTH="none")  # access: tests/mcp/test_http.py
    with http_server(env, "127.0.0.1", free_port(), server_dir) as url:
        yield url


def test_one_http_server_gives_two_workspaces_two_projects(
        kg_service: str, project: str, tmp_path: Path) -> None:
    first, second = workspace(tmp_path, f"{project}-a"), workspace(tmp_path, f"{project}-b")
    url = kg_service
    assert inbox_projects(StreamableHttpTransport(url), [first.as_uri()]) == [f"{project}-a"]
    assert inbox_projects(StreamableHttpTransport(url), [second.as_uri()]) == [f"{project}-b"]
    assert inbox_projects(StreamableHttpTransport(url), None) == [SERVICE_REPO]


def test_a_stdio_server_spawned_elsewhere_follows_the_clients_root(
        neo4j_server: ServerUnderTest, project: str, tmp_path: Path) -> None:
    root = workspace(tmp_path, project)
    transport = StdioTransport(sys.executable, [str(REPO / "mcp_server.py")],
                               env=server_env(neo4j_server), cwd=str(tmp_path))
    assert inbox_projects(transport, [root.as_uri()]) == [project]


def test_a_stateless_client_at_the_wired_url_lands_in_the_workspaces_project(
        kg_service: str, project: str, tmp_path: Path) -> None:
    """fastmcp 4's client speaks the 2026-07-28 protocol (no sessions, no roots): the project
    comes from the URL `kg-brain wire --url` writes in the workspace (its repository), else
    from a header."""
    alpha = workspace(tmp_path, f"{project}-alpha")
    url = kg_service
    wired = workspace_url(make_settings(kg_brain_project=None), url, alpha)
    assert inbox_projects(StreamableHttpTransport(wired), None, mode="auto") == \
        [f"{project}-alpha"]
    named = StreamableHttpTransport(url, headers={"X-KG-Brain-Project": f"{project}-h"})
    assert inbox_projects(named, None, mode="auto") == [f"{project}-h"]
    assert inbox_projects(StreamableHttpTransport(url), None, mode="auto") == [SERVICE_REPO]
    with pytest.raises(ToolError, match="project"):
        inbox_projects(StreamableHttpTransport(url + "?project=no%20way!"), None, mode="auto")
    with pytest.raises(ToolError, match="identity"):
        inbox_projects(StreamableHttpTransport(url + "?repo=git:nothex"), None, mode="auto")


def test_roots_win_over_the_project_the_url_names(
        kg_service: str, project: str, tmp_path: Path) -> None:
    root = workspace(tmp_path, f"{project}-root")
    transport = StreamableHttpTransport(kg_service + f"?project={project}-url")
    assert inbox_projects(transport, [root.as_uri()]) == [f"{project}-root"]
