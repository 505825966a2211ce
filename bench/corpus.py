"""Synthetic but realistic coding-agent notes for scale benchmarks (deterministic per seed).

Notes read like what an agent stores during work: mistakes with error names and files, fixes,
decisions with reasons, patterns, research findings. Varied vocabulary keeps the vector and
full-text indexes honest (random tokens would make both unrealistically easy or hard).
"""

from __future__ import annotations

import random
from collections.abc import Iterator

COMPONENTS = [
    "auth service", "payment worker", "search API", "ingest pipeline", "billing cron",
    "notification queue", "GraphQL gateway", "CLI installer", "session store", "report builder",
    "feature-flag client", "upload handler", "websocket hub", "rate limiter", "cache warmer",
    "migration runner", "image resizer", "audit logger", "export job", "scheduler daemon",
]
TECH = [
    "Neo4j", "PostgreSQL", "Redis", "Kafka", "RabbitMQ", "FastAPI", "Django", "Flask", "React",
    "Next.js", "pytest", "Docker", "Kubernetes", "Terraform", "GitHub Actions", "Celery",
    "SQLAlchemy", "pydantic", "httpx", "asyncio", "gRPC", "Nginx", "Elasticsearch", "S3",
    "sentence-transformers", "Poetry", "uv", "mypy", "ruff", "OpenTelemetry",
]
ERRORS = [
    "TimeoutError", "ConnectionResetError", "KeyError: 'user_id'", "IntegrityError",
    "RecursionError", "MemoryError", "ValidationError", "PermissionError", "DeadlockDetected",
    "SSLError", "JSONDecodeError", "UnicodeDecodeError", "ImportError", "AttributeError",
    "OOMKilled", "HTTP 429 Too Many Requests", "HTTP 502 Bad Gateway", "segfault in libssl",
]
FILES = [
    "src/api/handlers.py", "app/models/user.py", "services/billing/worker.py", "web/src/App.tsx",
    "infra/main.tf", "deploy/helm/values.yaml", "scripts/migrate.py", "core/cache.py",
    "tests/test_api.py", "pkg/queue/consumer.go", "lib/retry.ts", ".github/workflows/ci.yml",
]
CONDITIONS = [
    "the payload exceeded 10 MB", "two workers claimed the same job", "the token had expired",
    "the database failed over", "the container restarted mid-write", "DNS resolution was slow",
    "the cache was cold after deploy", "timezones differed between hosts",
    "the test ran in parallel with another", "the retry storm overloaded upstream",
]
ACTIONS = [
    "adding exponential backoff with jitter", "wrapping the writes in one transaction",
    "pinning the dependency to the previous minor", "streaming the file instead of buffering",
    "adding an idempotency key", "moving the call off the request path into a queue",
    "raising the pool size and adding a timeout", "normalising timestamps to UTC",
    "batching the inserts with UNWIND", "adding a unique constraint", "caching the compiled regex",
]
REASONS = [
    "it halves p95 latency", "the team already operates it", "it keeps writes transactional",
    "the licence allows commercial use", "it avoids a second datastore",
    "cold starts stay under a second",
    "it supports native vector indexes", "migration risk is lower", "it is easier to test locally",
]


def _mistake(r: random.Random) -> str:
    return (f"{r.choice(ERRORS)} in the {r.choice(COMPONENTS)} ({r.choice(FILES)}:"
            f"{r.randint(10, 900)}) when {r.choice(CONDITIONS)}; {r.choice(TECH)} kept retrying "
            f"without a limit and the job never finished.")


def _fix(r: random.Random) -> str:
    return (f"Fixed {r.choice(ERRORS)} in the {r.choice(COMPONENTS)} by {r.choice(ACTIONS)}; "
            f"verified with {r.choice(TECH)} under load ({r.randint(2, 64)} workers).")


def _decision(r: random.Random) -> str:
    a, b = r.sample(TECH, 2)
    return (f"We chose {a} over {b} for the {r.choice(COMPONENTS)} because {r.choice(REASONS)}; "
            f"revisit if traffic grows past {r.randint(1, 50) * 1000} requests per minute.")


def _pattern(r: random.Random) -> str:
    return (f"When {r.choice(CONDITIONS)}, prefer {r.choice(ACTIONS)} in the "
            f"{r.choice(COMPONENTS)}; it prevents {r.choice(ERRORS)} without extra infrastructure.")


def _research(r: random.Random) -> str:
    return (f"{r.choice(TECH)} handles {r.randint(1, 200)}k rows with {r.randint(2, 90)} ms p50 in "
            f"our {r.choice(COMPONENTS)} benchmark; {r.choice(TECH)} was {r.randint(2, 9)}x slower "
            f"on the same data.")


def _general(r: random.Random) -> str:
    return (f"The {r.choice(COMPONENTS)} reads its settings from {r.choice(FILES)} and talks to "
            f"{r.choice(TECH)} on port {r.randint(1024, 9999)}; owners rotate every sprint.")


KINDS = {"mistake": _mistake, "fix": _fix, "decision": _decision, "pattern": _pattern,
         "research": _research, "general": _general}


def notes(count: int, project: str, seed: int = 7) -> Iterator[dict[str, str]]:
    """`count` import records ({content, project, note_kind}) in a fixed, seed-determined order."""
    r = random.Random(seed)
    kinds = list(KINDS)
    for _ in range(count):
        kind = r.choice(kinds)
        yield {"content": KINDS[kind](r), "project": project, "note_kind": kind}


def queries(count: int, seed: int = 11) -> list[str]:
    """Questions an agent would ask of such a memory."""
    r = random.Random(seed)
    shapes = [
        lambda: f"why does the {r.choice(COMPONENTS)} fail with {r.choice(ERRORS)}?",
        lambda: f"how did we fix {r.choice(ERRORS)} when {r.choice(CONDITIONS)}",
        lambda: f"which datastore did we pick for the {r.choice(COMPONENTS)} and why",
        lambda: f"{r.choice(TECH)} latency in the {r.choice(COMPONENTS)}",
    ]
    return [r.choice(shapes)() for _ in range(count)]
