"""The offline entity extractor: each kind, canonical keys, precision, and subject comparison."""

from __future__ import annotations

import pytest

from kg_brain.enrichment.llm.entities import (
    by_kind,
    canonical_key,
    extract_entities,
    subjects_differ,
)
from kg_brain.enrichment.llm.types import EntityKind as K


def found(text: str) -> dict[str, K]:
    return {e.key: e.kind for e in extract_entities(text)}


@pytest.mark.parametrize(
    ("text", "key", "kind"),
    [
        ("Call `fetch_orders` before `syncStock`.", "fetch_orders", K.IDENTIFIER),
        ("The handler lives in OrderRepository now.", "orderrepository", K.IDENTIFIER),
        ("It calls billing.client.charge() on every retry.", "billing.client.charge", K.IDENTIFIER),
        ("Edit services/billing/app/main.py and restart.", "services/billing/app/main.py", K.FILE),
        ("The Dockerfile copies requirements.txt first.", "requirements.txt", K.FILE),
        ("Export DATABASE_URL before running the tests.", "DATABASE_URL", K.ENV_VAR),
        ("The script reads $HOME_DIR at start.", "HOME_DIR", K.ENV_VAR),
        ("The payments worker retries each charge.", "payment worker", K.SERVICE),
        ("Requests to order-api go through the gateway.", "order api", K.SERVICE),
        ("It connects to redis-cache:6379 on boot.", "redis-cache", K.HOST),
        ("It connects to redis-cache:6379 on boot.", "6379", K.PORT),
        ("The API listens on port 8443 behind nginx.", "8443", K.PORT),
        ("Background jobs run with Celery 5.3 here.", "celery 5.3", K.VERSION),
        ("Pin httpx==0.27.2 for now.", "httpx 0.27.2", K.VERSION),
        ("The call raised ConnectionResetError twice.", "connectionreseterror", K.ERROR),
        ("Uploads fail with ECONNREFUSED at night.", "econnrefused", K.ERROR),
        ("The gateway returned HTTP 502 for an hour.", "http 502", K.ERROR),
        ("The job exited with code 137 during the load.", "exit 137", K.ERROR),
        ("We moved background jobs to the tenacity library.", "tenacity", K.LIBRARY),
        ("Run pip install rapidfuzz to get the matcher.", "rapidfuzz", K.LIBRARY),
        ("The build uses Docker and Terraform.", "terraform", K.TOOL),
        ("Ask Priya before merging the release branch.", "priya", K.PERSON),
        ("The migration was reviewed by @okafor last week.", "okafor", K.PERSON),
        ("We deploy the marketing site to Netlify and Acme Cloud.", "acme cloud", K.PROPER_NOUN),
        ("The freeze starts 2024-12-20 for everyone.", "2024-12-20", K.DATE),
        ("The freeze starts on March 3, 2025 for everyone.", "2025-03-03", K.DATE),
        ("See https://docs.example.com/limits/ for the quotas.",
         "https://docs.example.com/limits", K.URL),
        ("Run uv sync --frozen in CI.", "--frozen", K.SETTING),
        ("Set max_connections = 50 in the pool config.", "max_connections", K.SETTING),
        ("The nightly export job times out after an hour.", "nightly export job", K.SERVICE),
        ("Index the orders table on created_at.", "order table", K.PHRASE),
    ],
)
def test_each_kind_is_found_with_its_canonical_key(text: str, key: str, kind: K) -> None:
    assert found(text).get(key) == kind


@pytest.mark.parametrize(
    ("variants", "key"),
    [
        (["The Stripe API rejects it.", "stripe rejects it.", "The Stripe client rejects it."],
         "stripe"),
        (["Postgres is slow here.", "PostgreSQL is slow here.", "We run postgresql 16.",
          "Moved it to psql."], "postgresql"),
        (["The payments worker's queue.", "the payment worker restarts", "Payment-worker logs."],
         "payment worker"),
        (["Use k8s for it.", "We moved to Kubernetes."], "kubernetes"),
    ],
)
def test_keys_fold_case_punctuation_plurals_and_aliases(variants: list[str], key: str) -> None:
    for text in variants:
        assert key in found(text), text


def test_one_word_of_a_known_name_names_it_only_beside_the_rest() -> None:
    # "Compose" is docker-compose where the text names Docker, another product's part elsewhere
    assert "docker-compose" not in found("The Android app draws its screens with Compose, and "
                                         "the Compose plugin comes with Kotlin 2.0.")
    assert "docker-compose" in found("Local dev runs on Docker: Compose starts postgres.")
    assert "docker-compose" in found("Run it with Docker Compose.")


def test_ubiquitous_words_and_sentence_initial_capitals_are_not_entities() -> None:
    keys = found("Deploying is slow. However the error message says the code is fine. "
                 "Nothing changed in the API, the DB or the CI config. Tests pass.")
    assert not {"deploying", "however", "nothing", "tests", "error", "code", "api", "db",
                "ci", "error message"} & set(keys)


def test_a_generic_modifier_does_not_make_a_service() -> None:
    assert not found("The main service and a new worker share the same job.")


def test_a_known_name_inside_a_phrase_is_both() -> None:
    keys = found("The celery worker restarts nightly.")
    assert keys.get("celery") == K.LIBRARY and keys.get("celery worker") == K.SERVICE


def test_entities_come_in_order_of_first_mention_once_each() -> None:
    refs = extract_entities("Redis restarted; the payment worker lost Redis twice.")
    assert [r.key for r in refs] == ["redis", "payment worker"]
    assert refs[0].name == "Redis"


@pytest.mark.parametrize(
    "text",
    ["", "   ", "---", "$", "http://", "## Über café — naïve résumé", "a" * 5000,
     "x.y (a) [b] {c} <d> \"e\" ; : , . ! ?", "The 2024-13-45 build"],
)
def test_odd_input_gives_no_junk(text: str) -> None:
    assert [e for e in extract_entities(text) if e.kind != K.IDENTIFIER] == []


def test_code_blocks_name_their_libraries_and_calls() -> None:
    keys = found("```python\nimport httpx\nclient = httpx.Client(timeout=5)\n```\nUse a timeout.")
    assert keys.get("httpx") == K.LIBRARY and keys.get("httpx.client") == K.IDENTIFIER


@pytest.mark.parametrize(
    ("name", "kind", "key"),
    [("the Payments Worker", K.SERVICE, "payment worker"), ("Postgres", K.SERVICE, "postgresql"),
     ("$DATABASE_URL", K.ENV_VAR, "DATABASE_URL"), ("./src/App.tsx", K.FILE, "src/app.tsx")],
)
def test_canonical_key_matches_the_extractor(name: str, kind: K, key: str) -> None:
    assert canonical_key(name, kind) == key


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The invoice mailer's logs go to Loki with a 14-day retention.",
         "The ledger exporter's logs go to Loki with a 14-day retention."),
        ("Ask Ines before touching the billing schema.",
         "Ask Bruno before touching the billing schema."),
        ("The geocoding proxy caches lookups under GEO_CACHE_DIR.",
         "The tile server caches lookups under GEO_CACHE_DIR."),
        ("Staging keeps request logs for 14 days.", "Production keeps request logs for 14 days."),
        ("The checkout page fetches prices from /api/prices with SWR.",
         "The cart page fetches prices from /api/prices with SWR."),
        ("beacon sync logs to ~/.local/state/beacon/sync.log.",
         "beacon sync logs to ~/.local/state/beacon/report.log."),
        ("The metrics exporter listens on port 9104.",
         "The metrics exporter listens on port 9105."),
        ("The worker image ships Celery 5.3.", "The worker image ships Celery 5.4."),
        ("The request timeout is 30 seconds.", "The request timeout is 2 minutes."),
        # a colon before a space ends the clause, not the number
        ("The prefetch count is 8: bursts drain slower.",
         "The prefetch count is 16: bursts drain slower."),
    ],
)
def test_subjects_differ_for_other_services_people_files_and_values(a: str, b: str) -> None:
    assert subjects_differ(a, b) and subjects_differ(b, a)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The metrics exporter listens on port 9104.",
         "Reminder: the metrics exporter listens on port 9104."),
        ("The request timeout is 30 seconds.", "Requests time out after 30 s."),
        ("The Vite dev server served stale CSS after edits.",
         "Restart the dev server when the CSS is stale."),
        ("Use tenacity for retries.", "Retries use tenacity with jitter."),
    ],
)
def test_the_same_subject_and_values_do_not_differ(a: str, b: str) -> None:
    assert not subjects_differ(a, b)


def test_a_file_and_line_is_not_a_port() -> None:
    """"scheduler.py:512" points at a line; read as a port it would make two notes about one
    file state different ports."""
    assert K.PORT not in by_kind("scheduler.py:512 drops the retry count.")
    assert K.PORT not in by_kind("See src/jobs/run.ts:1042 for the loop.")
    assert by_kind("The cache answers on cache.internal:6379.")[K.PORT] == {"6379"}
