"""What a workspace stands for, with real git: a repository's worktrees, clones, renamed copies,
detached checkouts and a bare clone's worktree share its identity; an unrelated repository of
the same name, a repository without commits and a folder outside git do not."""

from __future__ import annotations

from pathlib import Path

from bench.repos import clone, git, repository, worktree
from kg_brain.surfaces.workspace import (
    Identities,
    Identity,
    client_identity,
    client_url,
    workspace_identity,
)
from tests.support.brains import make_settings


def identity(folder: Path) -> Identity:
    found = workspace_identity(folder)
    assert found is not None
    return found


def test_worktrees_clones_and_a_renamed_copy_share_the_repositorys_identity(
        tmp_path: Path) -> None:
    main = repository(tmp_path / "team-a" / "api", commits=3)
    (main / "src").mkdir()
    first = identity(main / "src")
    assert first.id.startswith("git:") and first.name == "api"
    assert identity(worktree(main, tmp_path / "api-feature-x")) == \
        Identity(first.id, "api", first.before)  # named after the main folder
    copy = identity(clone(main, tmp_path / "api-copy"))
    assert (copy.id, copy.name) == (first.id, "api")  # the clone's origin names it
    (tmp_path / "team-a" / "api").rename(tmp_path / "team-a" / "api-renamed")
    assert identity(tmp_path / "team-a" / "api-renamed").id == first.id


def test_two_unrelated_repositories_of_one_name_stay_apart(tmp_path: Path) -> None:
    a = identity(repository(tmp_path / "team-a" / "api"))
    b = identity(repository(tmp_path / "team-b" / "api"))
    assert a.name == b.name == "api" and a.id != b.id


def test_a_detached_head_and_a_bare_clones_worktree_keep_the_identity(tmp_path: Path) -> None:
    main = repository(tmp_path / "api", commits=2, remote="git@example.com:team/api.git")
    first = identity(main)
    git(main, "checkout", "-q", "--detach", "HEAD~1")
    assert identity(main).id == first.id
    bare = clone(main, tmp_path / "mirror.git", "--bare")
    linked = worktree(bare, tmp_path / "linked", "linked")
    found = identity(linked)
    assert found.id == first.id and found.name == "api"  # the bare clone's origin: ../api


def test_a_repository_without_commits_takes_its_lasting_identity_at_the_first_commit(
        tmp_path: Path) -> None:
    empty = repository(tmp_path / "fresh", commits=0)
    before = identity(empty)
    assert before.id.startswith("gitdir:") and before.name == "fresh"
    assert identity(empty) == before  # stable while it has no commits
    (empty / "a.txt").write_text("a", encoding="utf-8")
    git(empty, "add", ".")
    git(empty, "commit", "-q", "-m", "first")
    after = identity(empty)
    assert after.id.startswith("git:") and after.before == before.id


def test_a_folder_outside_git_stands_for_its_resolved_path(tmp_path: Path) -> None:
    (tmp_path / "one" / "notes").mkdir(parents=True)
    (tmp_path / "two" / "notes").mkdir(parents=True)
    one = identity(tmp_path / "one" / "notes")
    assert one.id.startswith("path:") and one.name == "notes"
    assert identity(tmp_path / "one" / "notes") == one
    assert identity(tmp_path / "two" / "notes").id != one.id
    (tmp_path / "link").symlink_to(tmp_path / "one" / "notes")
    assert identity(tmp_path / "link") == one
    assert workspace_identity(Path("/")) is None


def test_a_wired_url_names_the_repository_the_same_in_every_clone(tmp_path: Path) -> None:
    main = repository(tmp_path / "api")
    settings = make_settings(kg_brain_project=None)
    url = "http://127.0.0.1:8765/mcp?project=old&tools=full"
    here = client_url(url, client_identity(settings, main), "core")
    there = client_url(url, client_identity(settings, clone(main, tmp_path / "b")), "core")
    assert here == there and "project=" not in here and "repo=git%3A" in here
    named = client_url(url, client_identity(make_settings(kg_brain_project="billing"), main),
                       "core")
    assert "project=billing" in named and "repo=" not in named


def test_identities_are_remembered_for_their_time_to_live(tmp_path: Path) -> None:
    empty = repository(tmp_path / "fresh", commits=0)
    remembered, fresh = Identities(ttl_s=60), Identities(ttl_s=0)
    before = remembered.of(empty)
    assert before is not None and fresh.of(empty) == before
    (empty / "a.txt").write_text("a", encoding="utf-8")
    git(empty, "add", ".")
    git(empty, "commit", "-q", "-m", "first")
    assert remembered.of(empty) == before  # within its time to live
    after = fresh.of(empty)
    assert after is not None and after.before == before.id
