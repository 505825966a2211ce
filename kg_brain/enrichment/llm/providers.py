"""Chat providers that return schema-validated JSON: Hugging Face Inference and any
OpenAI-compatible endpoint (Ollama, vLLM, llama.cpp server).

Each call is bounded: a timeout per request and a fixed number of retries for transient
failures and malformed replies. Whatever still fails becomes one ProviderError, which the
router answers by falling back to the heuristic.

Nothing leaves the process unredacted: `complete`, the one way to a model, passes the system
and user messages through the detector the store's write gate uses (`outbound`), whoever calls
it (enrichment, links, evolution, merges, splitting, session summaries, anything later).
"""

from __future__ import annotations

import json
import logging
import re
import time
from typing import Any, Literal, Protocol, TypeVar, cast

import httpx
from pydantic import BaseModel, ValidationError

from kg_brain.base.errors import ProviderError
from kg_brain.base.settings import Settings
from kg_brain.text.redact import redact
from kg_brain.text.redact.gate import gate

log = logging.getLogger(__name__)

Tier = Literal["fast", "hard"]
M = TypeVar("M", bound=BaseModel)

MAX_TOKENS = 1024
TEMPERATURE = 0.1
_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.S)


class ChatProvider(Protocol):
    """Sends one chat exchange to the fast or hard model and parses the JSON reply."""

    kind: str

    def model_for(self, tier: Tier) -> str: ...

    def complete(self, tier: Tier, system: str, user: str, schema: type[M]) -> M: ...


class _Retryable(Exception):
    """A transport failure worth another attempt after a pause (timeout, 429, 5xx)."""


def extract_json(raw: str) -> Any:
    """The first JSON value in a model reply, ignoring <think> blocks, fences and chatter."""
    text = _THINK.sub("", raw)
    if "</think>" in text:  # some models omit the opening tag
        text = text.rsplit("</think>", 1)[1]
    fenced = _FENCE.search(text)
    if fenced:
        text = fenced.group(1)
    decoder = json.JSONDecoder()
    for start in sorted(i for i in (text.find("{"), text.find("[")) if i >= 0):
        try:
            return decoder.raw_decode(text[start:])[0]
        except json.JSONDecodeError:
            continue
    raise ValueError("reply contains no JSON value")


def parse_reply(raw: str, schema: type[M]) -> M:
    """Validate a reply against the expected model; ValueError if it does not fit."""
    try:
        return schema.model_validate(extract_json(raw))
    except ValidationError as exc:
        raise ValueError(f"reply does not match {schema.__name__}: {exc}") from exc


def outbound(message: str) -> str:
    """A message as it may leave the process: its secrets hidden, always (SECRETS_MODE=reject
    refuses writes; a request is simply sent without them). A JSON document (the router sends
    notes and session records as JSON) is redacted value by value, as the write gate reads a
    statement's parameters, so each value is read as written rather than JSON-escaped."""
    try:
        document = json.loads(message)
    except ValueError:
        document = None
    if not isinstance(document, (dict, list)):
        return redact(message)[0]
    cleaned, found = gate({"document": document}, "redact")
    return json.dumps(cleaned["document"]) if found else message


class _BaseProvider:
    """Retry loop and model routing shared by both providers."""

    kind = "base"

    def __init__(self, fast_model: str, hard_model: str, max_retries: int) -> None:
        self._models: dict[Tier, str] = {"fast": fast_model, "hard": hard_model}
        self._max_retries = max_retries

    def model_for(self, tier: Tier) -> str:
        return self._models[tier]

    def complete(self, tier: Tier, system: str, user: str, schema: type[M]) -> M:
        messages = [{"role": "system", "content": outbound(system)},
                    {"role": "user", "content": outbound(user)}]
        model = self._models[tier]
        last: Exception | None = None
        for attempt in range(self._max_retries + 1):
            try:
                return parse_reply(self._chat(tier, messages), schema)
            except ValueError as exc:
                last = exc
            except _Retryable as exc:
                last = exc
                if attempt < self._max_retries:
                    time.sleep(min(2.0, 0.25 * 2**attempt))
            log.debug("%s %s attempt %d failed: %s", self.kind, model, attempt + 1, last)
        raise ProviderError(
            f"{self.kind} model {model} failed after {self._max_retries + 1} attempts: {last}"
        )

    def _chat(self, tier: Tier, messages: list[dict[str, str]]) -> str:
        raise NotImplementedError


class OpenAICompatibleProvider(_BaseProvider):
    """POST {base_url}/chat/completions with an optional bearer key."""

    kind = "openai"

    def __init__(self, settings: Settings, client: httpx.Client | None = None) -> None:
        super().__init__(settings.fast_model_id, settings.hard_model_id, settings.llm_max_retries)
        if not settings.openai_base_url:
            raise ProviderError("OPENAI_BASE_URL is not set")
        headers = {"Content-Type": "application/json"}
        if settings.openai_api_key:
            headers["Authorization"] = f"Bearer {settings.openai_api_key}"
        self._url = settings.openai_base_url.rstrip("/") + "/chat/completions"
        self._client = client or httpx.Client(timeout=settings.llm_timeout_s, headers=headers)

    def close(self) -> None:
        self._client.close()

    def _chat(self, tier: Tier, messages: list[dict[str, str]]) -> str:
        body = {
            "model": self._models[tier],
            "messages": messages,
            "temperature": TEMPERATURE,
            "max_tokens": MAX_TOKENS,
        }
        try:
            response = self._client.post(self._url, json=body)
        except httpx.TransportError as exc:  # timeouts, refused connections, resets
            raise _Retryable(f"{type(exc).__name__}: {exc}") from exc
        if response.status_code == 429 or response.status_code >= 500:
            raise _Retryable(f"HTTP {response.status_code}")
        if response.status_code >= 400:
            raise ProviderError(f"{self._url} answered HTTP {response.status_code}: "
                                f"{response.text[:200]}")
        try:
            payload = response.json()
        except ValueError as exc:
            raise ValueError(f"reply is not JSON: {response.text[:200]!r}") from exc
        return _content_of(payload)


class HuggingFaceProvider(_BaseProvider):
    """Hugging Face Inference Providers through huggingface_hub's InferenceClient.

    `base_url` targets a dedicated endpoint (TGI, Inference Endpoint) instead of a provider.
    """

    kind = "huggingface"

    def __init__(self, settings: Settings, base_url: str | None = None) -> None:
        super().__init__(settings.fast_model_id, settings.hard_model_id, settings.llm_max_retries)
        from huggingface_hub import InferenceClient

        key = settings.huggingface_api_key
        if not key and base_url is None:
            raise ProviderError("HUGGINGFACE_API_KEY is not set")
        timeout = settings.llm_timeout_s
        if base_url is not None:
            client = InferenceClient(base_url=base_url, api_key=key, timeout=timeout)
            self._clients: dict[Tier, Any] = {"fast": client, "hard": client}
        else:
            self._clients = {
                cast(Tier, tier): InferenceClient(provider=cast(Any, name), api_key=key,
                                                  timeout=timeout)
                for tier, name in (("fast", settings.fast_model_provider),
                                   ("hard", settings.hard_model_provider))
            }

    def _chat(self, tier: Tier, messages: list[dict[str, str]]) -> str:
        from huggingface_hub.errors import HfHubHTTPError, InferenceTimeoutError

        try:
            out = self._clients[tier].chat_completion(
                messages, model=self._models[tier], max_tokens=MAX_TOKENS, temperature=TEMPERATURE
            )
        except (InferenceTimeoutError, *_hub_transport_errors()) as exc:
            raise _Retryable(f"{type(exc).__name__}: {exc}") from exc
        except HfHubHTTPError as exc:
            status = exc.response.status_code if exc.response is not None else 0
            if status == 429 or status >= 500:
                raise _Retryable(f"HTTP {status}") from exc
            raise ProviderError(f"Hugging Face answered HTTP {status}: {exc}") from exc
        except Exception as exc:  # any other client failure (provider lookup...) is one error
            raise ProviderError(f"Hugging Face call failed: {type(exc).__name__}: {exc}") from exc
        try:
            return str(out.choices[0].message.content or "")
        except (AttributeError, IndexError) as exc:
            raise ValueError(f"unexpected chat completion shape: {exc}") from exc


def _hub_transport_errors() -> tuple[type[Exception], ...]:
    """huggingface_hub 1.x talks through httpx, 2.x through its httpx2 fork."""
    try:
        import httpx2
    except ImportError:
        return (httpx.TransportError,)
    return (httpx.TransportError, httpx2.TransportError)


def _content_of(payload: Any) -> str:
    """The assistant message of an OpenAI-style completion; ValueError on any other shape."""
    try:
        return str(payload["choices"][0]["message"]["content"] or "")
    except (TypeError, KeyError, IndexError) as exc:
        raise ValueError(f"unexpected chat completion shape: {exc}") from exc
