"""Project identity when the agent does not name one: setting, then git root, then 'general'."""

from __future__ import annotations

from pathlib import Path

from kg_brain.project import resolve_project
from tests.support.brains import make_settings


def test_the_setting_wins_over_the_workspace(tmp_path: Path) -> None:
    (tmp_path / "shop" / ".git").mkdir(parents=True)
    settings = make_settings(kg_brain_project="billing")
    assert resolve_project(settings, None, tmp_path / "shop") == "billing"


def test_the_git_root_names_the_project_from_any_subfolder(tmp_path: Path) -> None:
    (tmp_path / "my shop!" / ".git").mkdir(parents=True)
    (tmp_path / "my shop!" / "src" / "api").mkdir(parents=True)
    settings = make_settings(kg_brain_project=None)
    assert resolve_project(settings, None, tmp_path / "my shop!" / "src" / "api") == "my-shop"


def test_outside_a_repository_the_project_is_general(tmp_path: Path) -> None:
    assert resolve_project(make_settings(kg_brain_project=None), "  ", tmp_path) == "general"


def test_an_explicit_project_is_used_as_given(tmp_path: Path) -> None:
    assert resolve_project(make_settings(kg_brain_project="x"), "shop", tmp_path) == "shop"
