"""All configuration, read once from the environment and kg-brain's own configuration files.

This is the only module that reads the environment. Names follow the seed's `.env` where the
seed has one (STALE_DAYS_THRESHOLD, FAST_MODEL_ID, ...). Invalid values fail at start with a
message naming the variable.

Precedence, highest first: the process environment; the user's file
`$XDG_CONFIG_HOME/kg-brain/config.env` (`~/.config/kg-brain/config.env`); then one `.env`: the
file KG_BRAIN_ENV_FILE names, else the `.env` of the kg-brain checkout. The working directory's
`.env` is never read: a client starts the server in the user's workspace, and that
application's `.env` (its own NEO4J_URI) must not redirect kg-brain's memory.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Literal, get_args

from pydantic import (
    AliasChoices,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from kg_brain.base.errors import SetupError

ToolProfileName = Literal["core", "full"]
TOOL_PROFILES: tuple[str, ...] = get_args(ToolProfileName)


def _default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "kg-brain"


def _default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "kg-brain"


def _config_home() -> Path:
    return Path(os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config"))


def _default_opencode_config() -> Path:
    return _config_home() / "opencode" / "opencode.json"


CHECKOUT = Path(__file__).resolve().parents[2]


def config_files() -> tuple[Path, ...]:
    """The files settings are read from, lowest precedence first (pydantic-settings lets a
    later file override an earlier one, and the environment override both)."""
    named = os.environ.get("KG_BRAIN_ENV_FILE")
    if named:
        dotenv = Path(named).expanduser()
    elif (CHECKOUT / "pyproject.toml").is_file():
        dotenv = CHECKOUT / ".env"
    else:  # an installed package: no checkout, so no checkout .env
        return (user_config_file(),)
    return (dotenv, user_config_file())


# Settings renamed when similarities became the cosine: old name -> the name that replaced it.
RETIRED_SCALE = {"dedup_threshold": "dedup_min_cosine", "link_min_similarity": "link_min_cosine",
                 "evolution_min_similarity": "evolution_min_cosine"}


def user_config_file() -> Path:
    return _config_home() / "kg-brain" / "config.env"


class Settings(BaseSettings):
    """Every tunable value; field names are the environment variable names (case-insensitive)."""

    model_config = SettingsConfigDict(env_file=None, env_file_encoding="utf-8", extra="ignore")

    # --- Neo4j -------------------------------------------------------------------------------
    neo4j_uri: str | None = Field(None, description="Bolt/neo4j URI; unset = local server")
    neo4j_user: str = "neo4j"
    neo4j_password: str | None = Field(None, repr=False)
    neo4j_password_file: Path | None = Field(None, description=(
        "a file holding the Neo4j password, read when NEO4J_PASSWORD is unset (what "
        "`kg-brain wire --global` names instead of writing the password)"))
    neo4j_database: str = "neo4j"
    neo4j_timeout_s: float = Field(10.0, gt=0, description="connect/acquire/query timeout")
    neo4j_version: str = Field("[5.26.0,5.27.0)", description=(
        "Maven version range of the local server; [2026.01.0,2027.0.0) runs the 2026 line "
        "(Java 21+)"))
    java_home: Path | None = Field(None, description=(
        "the JDK or JRE that runs the local server (JAVA_HOME); unset = the java on PATH"))
    neo4j_bolt_port: int = Field(7687, ge=0, le=65535)
    neo4j_http_port: int = Field(7474, ge=0, le=65535)
    neo4j_heap: str = "1g"
    neo4j_pagecache: str = "512m"
    kg_brain_browser_port: int = Field(8766, ge=0, le=65535,
                                       description="loopback port serving the Browser guide and "
                                                   "style; 0 = the Browser as shipped")
    kg_brain_data_dir: Path = Field(default_factory=_default_data_dir)
    kg_brain_cache_dir: Path = Field(default_factory=_default_cache_dir)
    opencode_global_config: Path = Field(default_factory=_default_opencode_config)

    # --- Embeddings ----------------------------------------------------------------------------
    embedding_model: str | None = Field(None, description="path or model id; unset = packaged")
    embedding_batch_size: int = Field(
        64, ge=1, description="torch only: texts per run (the onnx runtimes run one text each)")
    embedding_runtime: Literal["torch", "onnx", "onnx-int8"] = Field(
        "onnx-int8", description="onnx-int8 (fastest) | onnx (torch's vectors) | torch")

    # --- LLM routing -----------------------------------------------------------------------------
    llm_provider: Literal["heuristic", "huggingface", "openai"] = "heuristic"
    huggingface_api_key: str | None = Field(
        None, repr=False, validation_alias=AliasChoices("HUGGINGFACE_API_KEY", "HF_TOKEN")
    )
    fast_model_id: str = "Qwen/Qwen3-4B-Instruct-2507"
    fast_model_provider: str = "featherless-ai"
    hard_model_id: str = "Qwen/Qwen3-30B-A3B-Instruct-2507"
    hard_model_provider: str = "featherless-ai"
    openai_base_url: str | None = None
    openai_api_key: str | None = Field(None, repr=False)
    llm_timeout_s: float = Field(30.0, gt=0)
    llm_max_retries: int = Field(2, ge=0, le=10)

    # --- Memory pipeline -------------------------------------------------------------------------
    kg_brain_project: str | None = None
    # Similarities are the cosine in [-1, 1] (Neo4j's scores are converted where they are read).
    dedup_min_cosine: float = Field(0.92, gt=0, le=1, description=(
        "a note at least this similar, of the same kind, subject and details, is merged into"))
    max_content_chars: int = Field(32_000, ge=100)
    link_top_k: int = Field(5, ge=0, le=50)
    link_min_cosine: float = Field(0.45, ge=-1, le=1)
    session_gap_s: int = Field(1800, ge=0, description=(
        "a permanent note FOLLOWS the last one its client session wrote in the project, when at "
        "most this long before it (0: never)"))
    evolution_min_cosine: float = Field(0.6, ge=0, le=1, description=(
        "an automatic link this strong (its weight, the cosine) evolves the older note"))
    # Retired names, read only to refuse them: they were on Neo4j's (1 + cos) / 2 scale.
    dedup_threshold: float | None = Field(None, exclude=True)
    link_min_similarity: float | None = Field(None, exclude=True)
    evolution_min_similarity: float | None = Field(None, exclude=True)
    secrets_mode: Literal["redact", "reject"] = "redact"
    session_context_tokens: int = Field(2_000, ge=200)

    # --- Forgetting ------------------------------------------------------------------------------
    stale_days_threshold: int = Field(45, ge=1)
    stale_access_threshold: int = Field(2, ge=0)
    decay_archive_threshold: float = Field(0.3, ge=0, le=1)
    forget_undo_days: int = Field(30, ge=0, le=3650,
                                  description="restore_forgotten works this long; then the "
                                              "scheduled purge deletes a forgotten note's text")

    # --- Scheduler -------------------------------------------------------------------------------
    archive_cron: str = "0 3 * * 0"
    consolidation_cron: str = "30 3 * * 0"
    forget_purge_cron: str = "45 3 * * *"
    evolution_interval_s: float = Field(5.0, gt=0)
    scheduler_in_server: bool = True
    auto_consolidate: bool = False

    # --- MCP transport ---------------------------------------------------------------------------
    kg_brain_http_host: str = "127.0.0.1"
    kg_brain_http_port: int = Field(8765, ge=1, le=65535)
    kg_brain_http_token: str | None = Field(None, repr=False, description=(
        "the bearer token every HTTP request carries; unset = the token file in the state "
        "folder, made on the service's first start"))
    kg_brain_http_auth: Literal["token", "none"] = Field("token", description=(
        "none: the HTTP service asks for no token (loopback only; it says so at start)"))
    kg_brain_http_allowed_hosts: Annotated[list[str], NoDecode] = Field(
        default_factory=list, description=(
            "Host header values the HTTP service accepts besides its own address "
            "(comma-separated, e.g. brain.example.com,192.168.1.20:8765)"))
    kg_brain_http_allowed_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=list, description=(
            "browser Origins the HTTP service accepts besides loopback ones (comma-separated, "
            "e.g. https://brain.example.com)"))
    kg_brain_service: bool = Field(True, description=(
        "`kg-brain mcp` forwards to the shared service on KG_BRAIN_HTTP_PORT when it runs; "
        "false serves every window in-process"))
    kg_brain_service_start: bool = Field(True, description=(
        "`kg-brain mcp` starts the shared service in the background when none runs"))
    kg_brain_service_idle_s: float = Field(0.0, ge=0, description=(
        "the shared HTTP service stops after this many seconds without a request in flight "
        "(an open window counts); 0 = only when stopped"))
    kg_brain_tools: ToolProfileName = Field("core", description=(
        "the MCP tools a client is offered when it names no profile "
        "(kg_brain/surfaces/profiles.py): "
        "core, what an agent uses every session, or full, with curation and maintenance"))

    # --- Obsidian mirror -------------------------------------------------------------------------
    obsidian_api_key: str | None = Field(None, repr=False)
    obsidian_host: str = "http://localhost:27123"
    obsidian_vault_subfolder: str = "brain"
    obsidian_vault_path: Path | None = None

    @property
    def state_dir(self) -> Path:
        """The shared service's state: its pid file, log and access token (private to the user)."""
        return Path(self.kg_brain_data_dir) / "state"

    @field_validator(*RETIRED_SCALE)
    @classmethod
    def _retired_scale(cls, value: float | None, info: ValidationInfo) -> None:
        """A threshold written on the old scale would silently change meaning: refuse it with
        the cosine that keeps it."""
        if value is None:
            return None
        name = RETIRED_SCALE[str(info.field_name)].upper()
        raise ValueError(
            f"is no longer read: it was on Neo4j's (1 + cos) / 2 scale, and similarities are now "
            f"the cosine in [-1, 1]; set {name}={2 * value - 1:.2f} for the same threshold "
            f"(or {name}'s default by removing it)")

    @field_validator("kg_brain_http_allowed_hosts", "kg_brain_http_allowed_origins",
                     mode="before")
    @classmethod
    def _comma_list(cls, value: object) -> object:
        """Host and Origin are compared case-insensitively, an Origin without a trailing slash."""
        if isinstance(value, str):
            value = value.split(",")
        if isinstance(value, list):
            return [str(v).strip().lower().rstrip("/") for v in value if str(v).strip()]
        return value

    @model_validator(mode="after")
    def _one_token_rule(self) -> Settings:
        if self.kg_brain_http_auth == "none" and self.kg_brain_http_token:
            raise ValueError("KG_BRAIN_HTTP_AUTH=none and KG_BRAIN_HTTP_TOKEN contradict each "
                             "other: unset one")
        return self

    @model_validator(mode="after")
    def _password_from_file(self) -> Settings:
        if self.neo4j_password is None and self.neo4j_password_file is not None:
            path = self.neo4j_password_file.expanduser()
            try:
                self.neo4j_password = path.read_text(encoding="utf-8").rstrip("\r\n")
            except OSError as exc:
                raise ValueError(f"NEO4J_PASSWORD_FILE {path} cannot be read ({exc.strerror})") \
                    from None
        return self

    @field_validator("neo4j_uri")
    @classmethod
    def _uri_scheme(cls, value: str | None) -> str | None:
        if value is None or value == "":
            return None
        schemes = ("bolt://", "bolt+s://", "bolt+ssc://", "neo4j://", "neo4j+s://", "neo4j+ssc://")
        if not value.startswith(schemes):
            raise ValueError(f"must start with one of {', '.join(schemes)}")
        return value


def load_settings(**overrides: object) -> Settings:
    """Read the settings once; turn validation errors into one readable SetupError. The
    files come from `config_files()` unless `_env_file` is given (None: the environment only)."""
    overrides.setdefault("_env_file", config_files())
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']).upper()}: {err['msg']}" for err in exc.errors()
        )
        raise SetupError(f"invalid configuration: {problems}") from None
