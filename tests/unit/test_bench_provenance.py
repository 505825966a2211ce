"""Every benchmark JSON says what reproduces it: the commit, the command and the settings."""

from __future__ import annotations

import importlib.machinery
import json
import subprocess
import sys
import types
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import bench.common
from bench.common import LEDGER, command, emit_result, record_check_run
from kg_brain.base.settings import load_settings


def test_a_result_records_the_commit_command_and_settings_without_secrets(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["/venv/bin/kg-brain", "bench", "scale", "--sizes", "1000"])
    settings = load_settings(_env_file=None, neo4j_password="pw-s3cret-1", dedup_min_cosine=0.9)
    emit_result({"recall": 0.5}, tmp_path / "r.json", settings)
    saved = json.loads((tmp_path / "r.json").read_text())
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=Path(__file__).parent,
                          capture_output=True, text=True, check=True).stdout.strip()
    assert saved["recall"] == 0.5
    assert saved["provenance"]["commit"] == head
    assert saved["provenance"]["command"] == "kg-brain bench scale --sizes 1000"
    assert saved["provenance"]["settings"]["dedup_min_cosine"] == 0.9
    assert "neo4j_password" not in saved["provenance"]["settings"]
    assert "pw-s3cret-1" not in (tmp_path / "r.json").read_text()


def test_a_program_run_as_a_module_records_the_command_that_runs_it_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    main = types.ModuleType("__main__")
    main.__spec__ = importlib.machinery.ModuleSpec("bench.stress", None)
    monkeypatch.setitem(sys.modules, "__main__", main)
    monkeypatch.setattr(sys, "argv", ["/repo/bench/stress.py", "--processes", "1,2"])
    assert command() == "python -m bench.stress --processes 1,2"


def test_a_check_run_appends_one_line_to_the_ledger(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["/venv/bin/kg-brain", "bench", "retrieval", "--suite",
                                      "coding", "--split", "check", "--out", "c.json"])
    ledger = tmp_path / "bench" / "check-ledger.jsonl"
    first = record_check_run("coding", "check", ["kelpmark", "pebblenest"], Path("c.json"),
                             ledger)
    second = record_check_run("secrets", "all", ["secrets.jsonl"], None, ledger)
    lines = [json.loads(line) for line in ledger.read_text(encoding="utf-8").splitlines()]
    assert lines == [first, second]  # appended, the earlier line kept
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=Path(__file__).parent,
                          capture_output=True, text=True, check=True).stdout.strip()
    assert first["commit"] == head and isinstance(first["uncommitted_changes"], bool)
    assert (first["suite"], first["split"], first["data"]) == ("coding", "check",
                                                               ["kelpmark", "pebblenest"])
    assert first["command"] == "kg-brain bench retrieval --suite coding --split check --out c.json"
    assert (first["out"], second["out"]) == ("c.json", None)
    assert abs(datetime.now(UTC) - datetime.fromisoformat(first["date"])) < timedelta(minutes=1)
    assert LEDGER.parts[-3:] == ("docs", "bench", "check-ledger.jsonl")


def test_a_result_rewritten_after_each_step_is_no_uncommitted_change(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True,
                              check=True).stdout.strip()

    git("init", "-q")
    (repo / "code.py").write_text("x = 1\n")
    (repo / "result.json").write_text("{}\n")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c")
    monkeypatch.setattr(bench.common, "_git", git)
    settings = load_settings(_env_file=None)
    for step in range(2):  # the second save finds the first one's file changed
        emit_result({"step": step}, repo / "result.json", settings)
        saved = json.loads((repo / "result.json").read_text())
        assert saved["provenance"]["uncommitted_changes"] is False
    (repo / "code.py").write_text("x = 2\n")
    emit_result({"step": 2}, repo / "result.json", settings)
    assert json.loads((repo / "result.json").read_text())["provenance"]["uncommitted_changes"]


def test_a_result_saved_outside_the_checkout_still_sees_its_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()

    def git(*args: str) -> str | None:  # as bench.common._git: None when git refuses
        done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True)
        return done.stdout.strip() if done.returncode == 0 else None

    git("init", "-q")
    (repo / "code.py").write_text("x = 1\n")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c")
    monkeypatch.setattr(bench.common, "_git", git)
    (repo / "code.py").write_text("x = 2\n")
    emit_result({"step": 0}, tmp_path / "elsewhere.json", load_settings(_env_file=None))
    saved = json.loads((tmp_path / "elsewhere.json").read_text())
    assert saved["provenance"]["uncommitted_changes"] is True
