"""Curated word lists for the offline entity extractor: known libraries, tools and services,
their aliases, words that head a service or artefact name, first names, and the acronyms and
modifiers too common to name anything.

Small and deliberate: structure (`pip install X`, "the X library", CamelCase) finds the rest.
"""

from __future__ import annotations

from kg_brain.enrichment.llm.types import EntityKind


def _kinds(kind: EntityKind, names: str) -> dict[str, EntityKind]:
    return dict.fromkeys(names.split(), kind)


# Canonical names by kind; multi-word names use a space.
KNOWN: dict[str, EntityKind] = {
    **_kinds(EntityKind.LIBRARY, """
        alembic sqlalchemy django flask fastapi starlette pydantic requests httpx aiohttp celery
        numpy pandas scipy hypothesis boto3 psycopg asyncpg uvicorn gunicorn jinja2 typer
        marshmallow structlog loguru tenacity apscheduler neomodel torch tensorflow transformers
        scikit-learn matplotlib beautifulsoup lxml pyyaml orjson sentence-transformers dramatiq
        rq arq sqlmodel peewee tortoise alpine htmx click
        react vue angular svelte next.js nuxt fastify nestjs axios lodash moment dayjs zod
        prisma typeorm sequelize knex mongoose redux graphql apollo socket.io tailwind trpc
        tokio serde actix axum reqwest diesel sqlx clap anyhow thiserror
        gin gorm cobra viper logrus testify
        hibernate junit jackson lombok log4j netty spring
        """),
    **_kinds(EntityKind.TOOL, """
        git docker docker-compose kubernetes kubectl helm terraform ansible nginx cmake npm yarn
        pnpm pip uv poetry pipenv cargo rustup maven gradle nodejs deno bun python java mypy
        ruff flake8 pylint eslint prettier tsc pre-commit github-actions jenkins circleci bazel
        tox nox conda pyenv nvm homebrew systemd cron tmux grafana prometheus jaeger pytest jest
        vitest mocha playwright cypress puppeteer webpack vite rollup esbuild babel storybook
        opencode caddy traefik haproxy k6 locust sqlite3 psql pgbouncer flyway liquibase
        """),
    **_kinds(EntityKind.SERVICE, """
        postgresql mysql mariadb sqlite mongodb redis memcached kafka rabbitmq elasticsearch
        opensearch neo4j clickhouse cassandra dynamodb s3 sqs sns cloudfront stripe twilio
        sendgrid sentry datadog pagerduty auth0 okta github gitlab slack heroku vercel netlify
        cloudflare aws gcp azure firebase supabase minio etcd consul mailgun paypal shopify
        snowflake bigquery pubsub nats temporal airflow keycloak vault-server
        """),
}

ALIASES: dict[str, str] = {
    "postgres": "postgresql", "psql": "postgresql", "pg": "postgresql", "pgsql": "postgresql",
    "k8s": "kubernetes", "mongo": "mongodb", "elastic": "elasticsearch",
    "docker compose": "docker-compose", "compose": "docker-compose",
    "github actions": "github-actions", "gh actions": "github-actions",
    "node": "nodejs", "node.js": "nodejs", "react.js": "react", "reactjs": "react",
    "vue.js": "vue", "vuejs": "vue", "nextjs": "next.js", "sklearn": "scikit-learn",
    "bs4": "beautifulsoup", "beautifulsoup4": "beautifulsoup", "psycopg2": "psycopg",
    "psycopg3": "psycopg", "py.test": "pytest", "amazon s3": "s3", "aws s3": "s3",
    "rabbit": "rabbitmq", "tailwindcss": "tailwind", "spring boot": "spring",
    "sqlalchemy orm": "sqlalchemy", "redis-py": "redis", "kube": "kubernetes",
    "gcs": "google cloud storage", "bq": "bigquery", "yml": "yaml",
}

# Names that are also plain English: only an entity when capitalised mid-sentence or in code.
AMBIGUOUS = frozenset("""
    black click express slack spring vault node make rust lambda apollo temporal compose
    rabbit elastic gin moment jest mocha rollup babel bun deno nats cron alpine caddy
    """.split())

# Words after a known name that still mean that name ("the Stripe API" is Stripe).
NAME_SUFFIXES = frozenset("""
    api apis sdk client clients library lib package module crate gem plugin cli server
    cluster instance database db broker service
    """.split())

# Last words that make a phrase the name of a running part of a system.
SERVICE_HEADS = frozenset("""
    worker service svc api gateway server daemon job cron sync scheduler consumer producer
    proxy bot app frontend backend pipeline queue listener webhook importer exporter poller
    watcher dispatcher processor indexer crawler mailer notifier cluster microservice lambda
    """.split())

# Last words that make a phrase name an artefact worth an entity ("the orders table").
HEAD_NOUNS = frozenset("""
    table column index endpoint route page topic bucket file config schema model field flag
    key cache pool limit timeout test suite build image container step script hook handler
    middleware layer module component view form button modal migration query request response
    token header cookie session lock lease retry backoff log metric alert dashboard report
    export import store repository repo directory folder branch release deploy deployment
    environment cluster node volume secret certificate template fixture mock check loop
    thread process task batch channel stream event message payload record entry account
    user customer order invoice payment cart checkout inventory catalog search feed profile
    permission role policy quota rate budget plan window screen widget hook reducer state
    context provider adapter parser serializer validator client library package dependency
    lockfile manifest spec contract protocol format encoding version tag label
    """.split()) | SERVICE_HEADS

# Modifiers that name no particular thing ("the main service", "a new worker").
GENERIC_MODIFIERS = frozenset("""
    main new old same other each every first second third another whole entire single one two
    three default current previous next existing separate own real actual specific given
    particular background last latest whole full small large big slow fast simple basic
    extra additional different similar various several many few good bad right wrong better
    worse proper correct incorrect broken working failing failed remaining initial final
    original underlying relevant related corresponding affected entire certain usual normal
    concurrent parallel multiple both
    """.split())

# Nouns every technical note uses: a phrase made of these alone names nothing in particular.
GENERIC_NOUNS = frozenset("""
    error message code test file data value result output input function method class variable
    line bug issue problem thing stuff way change version config setting name type list number
    string field object item call step time log user system app server service job project
    repo task process request response
    """.split())

# Acronyms every technical note uses: never an entity on their own.
COMMON_ACRONYMS = frozenset("""
    API APIS CI CD CLI DB SQL JSON YAML TOML HTTP HTTPS URL URI UI UX ID IDS TODO FIXME NOTE OK
    PR PRS MR QA PM AM UTC TZ TLS SSL SSH TCP UDP IP DNS CPU GPU RAM OS IO CSV XML HTML CSS JS TS
    ORM SDK REST RPC MVP WIP ETA EOD FYI TBD README ENV PII CRUD DDL DML LGTM IMO TL DR ASAP
    NB PS ONLY NEVER ALWAYS MUST NOT DO DONT WARNING IMPORTANT DONE NEW OLD AND OR THE IS ALL
    YES NO NOW BUT TL;DR ADR KB MB GB TB MS
    """.split())

FIRST_NAMES = frozenset("""
    aaron adam aisha alex alice amir ana andrea andrew anna ben bob carla carlos chen chris
    claire daniel dave david diego elena emma eric eva fatima felix hana hannah
    igor ines ivan james jane jen jenny jess john jonas jose julia kai karen kate kenji
    laura lea leo lina lisa lucas luis maria marta mateo maya mei mia michael mike
    mila nadia nina noah olga omar oscar pablo paul pedro priya rafael raj ravi rosa sam sara
    sarah sofia sven tara tomas wei yuki zoe ahmed arjun bruno dmitri erik farah hugo
    ingrid jonah kofi lars liam lukas marco nora ola pia quinn rita sean theo ulla vera
    """.split())

MONTHS = {m: i for i, m in enumerate(
    "january february march april may june july august september october november december"
    .split(), start=1)}
MONTHS |= {m[:3]: i for m, i in list(MONTHS.items())} | {"sept": 9}
