"""Settings: environment names as the seed spells them, readable failures."""

from __future__ import annotations

import pytest

from kg_brain.errors import SetupError
from kg_brain.settings import load_settings


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
