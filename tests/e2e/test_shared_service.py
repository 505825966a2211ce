"""Real OpenCode windows and the shared service: the service the first `opencode run` starts
outlives it and serves the next run, one after the other or overlapping (the first ends in the
middle of the second's session). Each test has its own data folder and port, and stops the
service at the end."""

from __future__ import annotations

import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from bench.repos import repository, worktree
from kg_brain.store.localdb import free_port
from tests.e2e import opencode
from tests.e2e.conftest import git_workspace, kg_env, wire_patient
from tests.e2e.scripted_model import Step, parsed, scripted_model
from tests.mcp.test_service import kg, service_pid, wait_for
from tests.support.neo4j import ServerUnderTest

FACT = "The shared kg-brain service outlives the OpenCode window that started it."
QUERY = "What outlives the OpenCode window?"
LATER = "Forwarded windows reach the warm service on port 8765 and load no embedding model."
LATER_QUERY = "Which port do forwarded windows reach?"
WAIT_S = 240


@pytest.fixture
def env(neo4j_server: ServerUnderTest, tmp_path: Path) -> Iterator[dict[str, str]]:
    found = {**kg_env(neo4j_server), "KG_BRAIN_SERVICE": "true",
             "KG_BRAIN_SERVICE_START": "true", "KG_BRAIN_HTTP_PORT": str(free_port()),
             "KG_BRAIN_DATA_DIR": str(tmp_path / "data")}
    yield found
    if service_pid(found) is not None:
        kg(found, "service", "stop")


def service_log(tmp_path: Path) -> str:
    return (tmp_path / "data" / "state" / "service.log").read_text()


def test_the_second_run_forwards_to_the_service_the_first_started(
        opencode_binary: Path, env: dict[str, str], project: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    with scripted_model() as (model, url):
        workspace = git_workspace(tmp_path, project, url)
        wire_patient(workspace, env, home)
        model.steps = [Step("add_memory", {"content": FACT})]
        first = opencode.run(workspace, home, "Remember this.", env)
        assert first.returncode == 0, first.stderr[-3000:]
        assert model.tool_results(), first.stderr[-3000:]
        (added,) = [parsed(t) for t in model.tool_results()]
        wait_for(lambda: service_pid(env) is not None, WAIT_S)
        pid = service_pid(env)
        assert f"&name={project}&" not in service_log(tmp_path)  # run 1: in-process
        model.steps = [Step("search_memory", {"query": QUERY})]
        second = opencode.run(workspace, home, "Look it up.", env)
        assert second.returncode == 0, second.stderr[-3000:]
        assert model.tool_results(), second.stderr[-3000:]
        (found,) = [parsed(t) for t in model.tool_results()]
    assert added["project"] == found["project"] == project
    assert found["hits"][0]["zk_id"] == added["zk_id"]
    assert service_pid(env) == pid  # alive after both runs ended
    # the relay names the window's repository (its identity and readable name) and the tool
    # profile its entry was wired with
    assert re.search(rf'"POST /mcp\?repo=[^&"]+&name={project}&tools=full HTTP/1.1" 200',
                     service_log(tmp_path))


def test_a_run_forwarded_to_the_service_carries_on_after_the_run_that_started_it_exits(
        opencode_binary: Path, env: dict[str, str], project: str, tmp_path: Path) -> None:
    homes = [tmp_path / "home-1", tmp_path / "home-2"]
    with scripted_model() as (model_1, url_1), scripted_model() as (model_2, url_2), \
            ThreadPoolExecutor(2) as pool:
        # two windows on one repository: its folder and a worktree of it (a project follows
        # the repository), each with its own scripted model
        one = repository(tmp_path / "one" / project)
        opencode.write_json(one / "opencode.json", opencode.provider_config(url_1))
        two = worktree(one, tmp_path / "two" / project)
        opencode.write_json(two / "opencode.json", opencode.provider_config(url_2))
        spaces = [one, two]
        for space, home in zip(spaces, homes, strict=True):
            wire_patient(space, env, home)
        model_1.steps = [Step("add_memory", {"content": FACT})]
        first_mid = model_1.pause_after(1)  # run 1 has written its note and is mid-session
        model_2.steps = [Step("search_memory", {"query": QUERY}),
                         Step("add_memory", {"content": LATER}),
                         Step("search_memory", {"query": LATER_QUERY})]
        second_mid = model_2.pause_after(1)
        first = pool.submit(opencode.run, spaces[0], homes[0], "Remember this.", env)
        assert first_mid.reached.wait(WAIT_S), "run 1 made no tool call"
        wait_for(lambda: service_pid(env) is not None, WAIT_S)
        pid = service_pid(env)
        second = pool.submit(opencode.run, spaces[1], homes[1], "Look it up, add more.", env)
        assert second_mid.reached.wait(WAIT_S), "run 2 made no tool call"
        first_mid.go.set()
        ended = first.result()
        assert ended.returncode == 0, ended.stderr[-3000:]
        assert second.running()  # run 1 ended in the middle of run 2's session
        second_mid.go.set()
        done = second.result()
        assert done.returncode == 0, done.stderr[-3000:]
        (added,) = [parsed(t) for t in model_1.tool_results()]
        found, later, found_later = [parsed(t) for t in model_2.tool_results()]
    assert {added["project"], found["project"], later["project"], found_later["project"]} == {
        project}
    assert found["hits"][0]["zk_id"] == added["zk_id"]
    assert found_later["hits"][0]["zk_id"] == later["zk_id"]
    assert service_pid(env) == pid  # the service run 1 started served run 2 to its end
    assert len(re.findall(
        rf'"POST /mcp\?repo=[^&"]+&name={project}&tools=full HTTP/1.1" 200',
        service_log(tmp_path))) >= 3
