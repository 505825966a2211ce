"""Private files: folders kg-brain creates are 0700, an older tree is tightened (executables keep
their bit, links are left alone), and the HTTP service's token is made once, 0600, by whichever
of several processes starting together gets there first."""

from __future__ import annotations

import stat
import subprocess
import sys
from pathlib import Path

import pytest

from kg_brain.base.errors import SetupError
from kg_brain.base.private import ensure_token, private_dir, service_token, tighten, token_file
from tests.support.brains import make_settings
from tests.support.mcp import REPO


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def test_missing_folders_are_made_for_the_user_alone(tmp_path: Path) -> None:
    (tmp_path / "shared").mkdir(mode=0o755)
    made = private_dir(tmp_path / "shared" / "kg-brain" / "state")
    assert [mode(p) for p in (made, made.parent)] == [0o700, 0o700]
    assert mode(tmp_path / "shared") == 0o755  # not kg-brain's: left as it was


def test_an_older_tree_is_tightened_keeping_executables_and_leaving_links(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("not ours")
    outside.chmod(0o644)
    root = tmp_path / "data"
    (root / "neo4j" / "data").mkdir(parents=True)
    (root / "neo4j" / "data" / "store").write_text("nodes")
    (root / "bin").mkdir()
    (root / "bin" / "tool").write_text("#!/bin/sh\n")
    (root / "bin" / "tool").chmod(0o755)
    (root / "link").symlink_to(outside)
    for path in (root, *root.rglob("*")):
        if not path.is_symlink() and path.is_dir():
            path.chmod(0o755)
    tighten(root)
    assert {p.relative_to(root).as_posix(): oct(mode(p)) for p in root.rglob("*")
            if not p.is_symlink()} == {"neo4j": "0o700", "neo4j/data": "0o700",
                                       "neo4j/data/store": "0o600", "bin": "0o700",
                                       "bin/tool": "0o700"}
    assert mode(root) == 0o700 and mode(outside) == 0o644


def test_the_token_is_made_once_private_and_read_back(tmp_path: Path) -> None:
    settings = make_settings(kg_brain_data_dir=tmp_path)
    assert service_token(settings) is None
    token = ensure_token(settings)
    assert len(token) >= 43 and ensure_token(settings) == token == service_token(settings)
    assert mode(token_file(settings)) == 0o600 and mode(token_file(settings).parent) == 0o700
    assert [p.name for p in token_file(settings).parent.iterdir()] == ["token"]


def test_processes_starting_together_agree_on_one_token(tmp_path: Path) -> None:
    code = ("import sys; from kg_brain.base.private import ensure_token; "
            "from tests.support.brains import make_settings; "
            "print(ensure_token(make_settings(kg_brain_data_dir=sys.argv[1])))")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(tmp_path)], cwd=REPO,
                              stdout=subprocess.PIPE, text=True) for _ in range(6)]
    tokens = {proc.communicate(timeout=120)[0].strip() for proc in procs}
    assert len(tokens) == 1 and tokens == {(tmp_path / "state" / "token").read_text().strip()}


def test_a_set_token_wins_and_none_means_none(tmp_path: Path) -> None:
    assert service_token(make_settings(kg_brain_data_dir=tmp_path,
                                       kg_brain_http_token="mine")) == "mine"
    assert service_token(make_settings(kg_brain_data_dir=tmp_path,
                                       kg_brain_http_auth="none")) is None
    assert not (tmp_path / "state").exists()


def test_an_emptied_token_file_is_a_clear_error(tmp_path: Path) -> None:
    settings = make_settings(kg_brain_data_dir=tmp_path)
    private_dir(token_file(settings).parent)
    token_file(settings).write_text("\n")
    with pytest.raises(SetupError, match="is empty: delete it"):
        ensure_token(settings)
