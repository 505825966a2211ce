"""Note enrichment: an offline heuristic, optionally an LLM router in front of it.

`build_enricher` is the one place that picks between them from the settings.
"""

from __future__ import annotations

import logging

from kg_brain.base.settings import Settings
from kg_brain.enrichment.llm.heuristic import HeuristicEnricher
from kg_brain.enrichment.llm.router import LLMEnricher
from kg_brain.enrichment.llm.types import (
    Candidate,
    Enricher,
    Enrichment,
    EntityKind,
    EntityRef,
    LinkDecision,
    NoteDraft,
    SessionDigest,
    Synthesis,
)

log = logging.getLogger(__name__)

__all__ = [
    "Candidate",
    "Enricher",
    "Enrichment",
    "EntityKind",
    "EntityRef",
    "HeuristicEnricher",
    "LLMEnricher",
    "LinkDecision",
    "NoteDraft",
    "SessionDigest",
    "Synthesis",
    "build_enricher",
]


def build_enricher(settings: Settings) -> Enricher:
    """The LLM router when a provider is configured and usable, otherwise the heuristic. The
    providers (httpx, huggingface_hub) load here, when the Brain builds its dependencies."""
    from kg_brain.enrichment.llm.providers import (
        ChatProvider,
        HuggingFaceProvider,
        OpenAICompatibleProvider,
    )

    heuristic = HeuristicEnricher(min_similarity=settings.link_min_cosine)
    provider: ChatProvider | None = None
    if settings.llm_provider == "huggingface":
        if settings.huggingface_api_key:
            provider = HuggingFaceProvider(settings)
        else:
            log.warning("LLM_PROVIDER=huggingface but HUGGINGFACE_API_KEY is unset; "
                        "using the heuristic enricher")
    elif settings.llm_provider == "openai":
        if settings.openai_base_url:
            provider = OpenAICompatibleProvider(settings)
        else:
            log.warning("LLM_PROVIDER=openai but OPENAI_BASE_URL is unset; "
                        "using the heuristic enricher")
    if provider is None:
        return heuristic
    log.info("enrichment via %s (fast) and %s (hard)", provider.model_for("fast"),
             provider.model_for("hard"))
    return LLMEnricher(provider, heuristic, min_similarity=settings.link_min_cosine)
