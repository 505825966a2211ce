"""Settings: environment names as the seed spells them, readable failures."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_brain.base.errors import SetupError
from kg_brain.base.settings import config_files, load_settings


def test_seed_names_are_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STALE_DAYS_THRESHOLD", "30")
    monkeypatch.setenv("FAST_MODEL_ID", "some/model")
    monkeypatch.setenv("HF_TOKEN", "hf_test_value")
    settings = load_settings()
    assert settings.stale_days_threshold == 30
    assert settings.fast_model_id == "some/model"
    assert settings.huggingface_api_key == "hf_test_value"


def test_invalid_value_fails_naming_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STALE_DAYS_THRESHOLD", "soon")
    with pytest.raises(SetupError, match="STALE_DAYS_THRESHOLD"):
        load_settings()


def test_unknown_uri_scheme_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEO4J_URI", "http://127.0.0.1:7474")
    with pytest.raises(SetupError, match="NEO4J_URI"):
        load_settings()


def test_secrets_are_not_in_the_repr(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEO4J_PASSWORD", "very-secret-pw")
    assert "very-secret-pw" not in repr(load_settings())


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def hostile_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The working directory is an application whose own .env points at its own database; the
    user's XDG config home is empty and no kg-brain variable is in the environment."""
    workspace = tmp_path / "app"
    _write(workspace / ".env", "NEO4J_URI=bolt://app-database:7687\nSTALE_DAYS_THRESHOLD=7\n")
    monkeypatch.chdir(workspace)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for name in ("NEO4J_URI", "STALE_DAYS_THRESHOLD", "KG_BRAIN_ENV_FILE"):
        monkeypatch.delenv(name, raising=False)
    return workspace


def test_the_working_directorys_env_is_never_read(hostile_workspace: Path) -> None:
    settings = load_settings()
    assert settings.neo4j_uri != "bolt://app-database:7687"
    assert hostile_workspace / ".env" not in config_files()


def test_environment_then_user_config_then_named_env_file(
        hostile_workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    named = _write(tmp_path / "kg.env", "NEO4J_URI=bolt://named:1\nSTALE_DAYS_THRESHOLD=11\n"
                                        "LINK_TOP_K=3\n")
    monkeypatch.setenv("KG_BRAIN_ENV_FILE", str(named))
    assert load_settings().neo4j_uri == "bolt://named:1"
    _write(tmp_path / "config" / "kg-brain" / "config.env",
           "NEO4J_URI=bolt://user-config:2\nSTALE_DAYS_THRESHOLD=22\n")
    settings = load_settings()
    assert (settings.neo4j_uri, settings.stale_days_threshold, settings.link_top_k) == (
        "bolt://user-config:2", 22, 3)
    monkeypatch.setenv("STALE_DAYS_THRESHOLD", "33")
    assert load_settings().stale_days_threshold == 33


def test_a_threshold_on_the_old_scale_is_refused_with_the_cosine_that_keeps_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """DEDUP_THRESHOLD 0.92 was (1 + cos) / 2: the same threshold is the cosine 0.84."""
    monkeypatch.setenv("DEDUP_THRESHOLD", "0.92")
    with pytest.raises(SetupError, match=r"DEDUP_THRESHOLD.*DEDUP_MIN_COSINE=0\.84"):
        load_settings(_env_file=None)
    monkeypatch.delenv("DEDUP_THRESHOLD")
    monkeypatch.setenv("LINK_MIN_SIMILARITY", "0.45")
    with pytest.raises(SetupError, match=r"LINK_MIN_COSINE=-0\.10"):
        load_settings(_env_file=None)
    monkeypatch.delenv("LINK_MIN_SIMILARITY")
    monkeypatch.setenv("EVOLUTION_MIN_COSINE", "0.3")
    assert load_settings(_env_file=None).evolution_min_cosine == 0.3


def test_http_allow_lists_are_comma_separated_and_case_insensitive(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KG_BRAIN_HTTP_ALLOWED_HOSTS", " Brain.Example.com, 192.168.1.20:8765,")
    monkeypatch.setenv("KG_BRAIN_HTTP_ALLOWED_ORIGINS", "https://Brain.example.com/")
    settings = load_settings(_env_file=None)
    assert settings.kg_brain_http_allowed_hosts == ["brain.example.com", "192.168.1.20:8765"]
    assert settings.kg_brain_http_allowed_origins == ["https://brain.example.com"]


def test_no_token_and_a_set_token_together_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KG_BRAIN_HTTP_AUTH", "none")
    monkeypatch.setenv("KG_BRAIN_HTTP_TOKEN", "t0ken")
    with pytest.raises(SetupError, match="KG_BRAIN_HTTP_AUTH=none and KG_BRAIN_HTTP_TOKEN"):
        load_settings(_env_file=None)
