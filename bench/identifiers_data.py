"""The identifier suite's data (bench/data/identifiers-r2/): small fictional projects whose notes
each hold an exact identifier of a form an agent meets while coding (git hashes and ranges,
issue and merge-request references, ticket keys, advisories, compiler and runtime error codes,
SQLSTATEs, HTTP statuses, Kubernetes resources, image tags and digests, pre-release versions,
environment variables, dotted config keys, CLI flags, file:line:column, UUIDs, ARNs, addresses
with ports, Terraform resource addresses), look-alike notes holding other identifiers of the
same forms (many sharing a prefix, a suffix or all but one part with a real one), questions
naming a real note's identifier in several shapes (bare, in a question, in backticks,
lower-cased, with trailing punctuation, a prefix of a hash, digest or UUID, one end of a
range), and identifiers of the same forms no note holds.

Written once from a seed by `python -m bench.identifiers_data OUT_DIR [--seed N]`: the
sentences are templates of this file, the identifiers random draws, so nothing is drawn from
another suite. Each project file: {name, description, notes: [{key, content, form, real}],
questions: [{text, expected: [key], form, shape}], absent: [{text, form, shape}]}. A question's
identifier is held (word-bounded, any case) by its expected note alone; an absent one by none.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

FORMS = ("hash_short", "hash_full", "hash_range", "gh_ref", "gl_mr", "cross_ref", "ticket",
         "cve", "ghsa", "rust_error", "ts_error", "node_error", "lint_code", "sqlstate", "http",
         "k8s", "image", "digest", "semver", "env", "config", "flag", "file_line", "uuid",
         "arn", "ip_port", "tf_address")
# forms asked of twice as many real notes: the ones an agent quotes most
COMMON = ("hash_short", "hash_full", "ticket", "config", "file_line", "env", "ts_error",
          "node_error", "semver", "k8s")
LOOKALIKES = 100
ABSENT = 12


@dataclass(frozen=True)
class Project:
    name: str
    description: str
    org: str
    repo: str
    ticket: str
    services: tuple[str, ...]
    dirs: tuple[str, ...]
    people: tuple[str, ...]
    region: str
    config_roots: tuple[str, ...]
    env_prefix: str
    tf_modules: tuple[str, ...]


PROJECTS = (
    Project("larchway", "TypeScript payments API on Node 20 (Fastify, Prisma, Postgres), "
            "deployed to Kubernetes from GitHub Actions", "larchway", "payments-api", "PAYW",
            ("ledger", "checkout", "refunds", "webhooks", "payouts"),
            ("src/routes", "src/services", "src/db", "test/e2e"),
            ("Ines", "Tomasz", "Priya"), "eu-west-1",
            ("fastify.server", "prisma.pool", "ledger.sync"), "LARCH",
            ("vpc", "rds", "eks")),
    Project("mossfield", "Rust data-pipeline CLI and worker (tokio, sqlx, Parquet output), "
            "tracked in Linear, released as container images", "mossfield-labs", "mossfield",
            "MOS", ("ingest", "compactor", "scheduler", "exporter", "catalog"),
            ("crates/core/src", "crates/cli/src", "crates/worker/src", "tests"),
            ("Anouk", "Rafael", "Mei"), "us-east-2",
            ("pipeline.ingest", "worker.pool", "catalog.cache"), "MOSS",
            ("network", "batch", "storage")),
    Project("quarrybell", "Python Django storefront with Celery workers on Kubernetes, Jira for "
            "tickets, ruff and mypy in CI", "quarrybell", "storefront", "QB",
            ("orders", "search", "inventory", "emails", "accounts"),
            ("shop/orders", "shop/search", "shop/accounts", "tests/integration"),
            ("Dara", "Lukas", "Sofia"), "eu-central-1",
            ("celery.broker_transport_options", "cache.default", "search.index"), "QBELL",
            ("vpc", "redis", "cdn")),
    Project("tidewick", "Go microservices on AWS (ECS and Lambda) provisioned with Terraform, "
            "staticcheck and golangci-lint in CI", "tidewick", "platform", "TW",
            ("gateway", "billing", "notifier", "tracker", "auth"),
            ("cmd/gateway", "internal/billing", "internal/notify", "pkg/retry"),
            ("Hana", "Oskar", "Femi"), "ap-southeast-2",
            ("gateway.http", "billing.retry", "notifier.queue"), "TIDE",
            ("vpc", "ecs", "lambda")),
    Project("fernhollow", "Java Spring Boot order service with Kafka and Postgres, Gradle "
            "build, Jira tickets, Helm charts", "fernhollow", "order-service", "FERN",
            ("orders", "pricing", "shipping", "invoices", "audit"),
            ("src/main/java/io/fernhollow/orders", "src/main/java/io/fernhollow/pricing",
             "src/main/resources", "src/test/java/io/fernhollow"),
            ("Marta", "Kenji", "Olu"), "eu-north-1",
            ("spring.datasource.hikari", "spring.kafka.consumer", "management.endpoints.web"),
            "FERN", ("network", "msk", "aurora")),
    Project("ashgrove", "GitLab monorepo: a React front end and a Node BFF, Linear issues, "
            "merge requests, review apps on Kubernetes", "ashgrove", "web", "ASH",
            ("bff", "storybook", "design-tokens", "search-ui", "checkout-ui"),
            ("apps/web/src", "apps/bff/src", "packages/ui/src", "e2e"),
            ("Noor", "Felix", "Ayla"), "eu-west-2",
            ("bff.upstream", "web.cdn", "auth.session"), "ASH",
            ("vpc", "cluster", "edge")),
)

_HEX = "0123456789abcdef"
_GHSA = "23456789cfghjmpqrvwx"
RUST = ("E0502", "E0499", "E0382", "E0308", "E0277", "E0425", "E0433", "E0599", "E0106",
        "E0373", "E0507", "E0716", "E0597", "E0614", "E0061", "E0369", "E0412", "E0560")
TS = ("TS2345", "TS2322", "TS2339", "TS7006", "TS2532", "TS18048", "TS2769", "TS1005",
      "TS2307", "TS2454", "TS2741", "TS2564", "TS2551", "TS7053", "TS2304", "TS1259")
NODE = ("ERR_REQUIRE_ESM", "ERR_MODULE_NOT_FOUND", "ERR_UNHANDLED_REJECTION",
        "ERR_INVALID_ARG_TYPE", "ERR_STREAM_PREMATURE_CLOSE", "ERR_HTTP_HEADERS_SENT",
        "ERR_SOCKET_CONNECTION_TIMEOUT", "ERR_TLS_CERT_ALTNAME_INVALID",
        "ERR_UNKNOWN_FILE_EXTENSION", "ERR_INVALID_URL", "ERR_STREAM_WRITE_AFTER_END",
        "ERR_WORKER_OUT_OF_MEMORY", "ERR_IMPORT_ASSERTION_TYPE_MISSING",
        "ERR_PACKAGE_PATH_NOT_EXPORTED")
LINT = ("F401", "E501", "B008", "UP007", "SIM108", "PLR0913", "RUF012", "ANN401", "SA1019",
        "SA4006", "ST1003", "S1002", "QF1001", "G104", "DTZ005", "PT011")
SQLSTATE = ("23505", "40001", "23503", "42P01", "40P01", "57014", "53300", "08006", "22P02",
            "42703", "55P03", "25P02")
HTTP = (("429", "Too Many Requests"), ("503", "Service Unavailable"), ("502", "Bad Gateway"),
        ("504", "Gateway Timeout"), ("413", "Payload Too Large"), ("409", "Conflict"),
        ("422", "Unprocessable Entity"), ("401", "Unauthorized"), ("403", "Forbidden"),
        ("408", "Request Timeout"), ("431", "Request Header Fields Too Large"),
        ("425", "Too Early"), ("507", "Insufficient Storage"), ("451", "Unavailable For Legal "
                                                                       "Reasons"))
K8S_KINDS = ("deploy", "statefulset", "pod", "svc", "cronjob", "configmap", "ingress", "job")
WORDS = ("queue", "retry", "timeout", "limit", "window", "token", "bucket", "path", "secret",
         "region", "batch", "pool", "cache", "host", "port", "ttl", "size", "level", "mode",
         "url", "key", "delay", "workers", "threshold")
FLAGS = ("max-old-space-size", "unhandled-rejections", "frozen-lockfile", "no-verify-ssl",
         "max-semi-space-size", "enable-source-maps", "experimental-vm-modules",
         "trace-warnings", "detectOpenHandles", "runInBand", "no-cache-dir", "prefer-offline",
         "max-workers", "target-dir", "locked", "all-features", "race", "count", "timeout",
         "cpuprofile", "inspect-brk", "stack-size", "no-deps", "force-recreate")
TF_TYPES = ("aws_subnet", "aws_security_group", "aws_iam_role", "aws_db_instance",
            "aws_lambda_function", "aws_sqs_queue", "aws_route_table", "aws_nat_gateway",
            "aws_s3_bucket", "aws_ecs_service")
PRE = ("rc", "beta", "alpha")
PORTS = ("5432", "6379", "9092", "8080", "8443", "3000", "9200", "27017", "4317", "5672")


def hexs(r: random.Random, n: int) -> str:
    """n hex digits with at least one digit and one letter (a hash, not a number)."""
    while True:
        s = "".join(r.choice(_HEX) for _ in range(n))
        if re.search(r"\d", s) and re.search(r"[a-f]", s):
            return s


def draw(form: str, p: Project, r: random.Random) -> str:
    """A fresh identifier of `form` for project `p`."""
    svc = r.choice(p.services)
    match form:
        case "hash_short":
            return hexs(r, r.choice((7, 8, 9, 10, 12)))
        case "hash_full":
            return hexs(r, 40)
        case "hash_range":
            n = r.choice((7, 8))
            return f"{hexs(r, n)}..{hexs(r, n)}"
        case "gh_ref":
            return f"#{r.randint(100, 2999)}"
        case "gl_mr":
            return f"!{r.randint(10, 999)}"
        case "cross_ref":
            return f"{p.org}/{r.choice((p.repo, svc, 'infra', 'docs'))}#{r.randint(10, 999)}"
        case "ticket":
            return f"{p.ticket}-{r.randint(10, 4999)}"
        case "cve":
            return f"CVE-{r.randint(2019, 2025)}-{r.randint(1000, 49999)}"
        case "ghsa":
            return "GHSA-" + "-".join("".join(r.choice(_GHSA) for _ in range(4)) for _ in range(3))
        case "rust_error":
            return r.choice(RUST)
        case "ts_error":
            return r.choice(TS)
        case "node_error":
            return r.choice(NODE)
        case "lint_code":
            return r.choice(LINT)
        case "sqlstate":
            return r.choice(SQLSTATE)
        case "http":
            code, words = r.choice(HTTP)
            return f"{code} {words}"
        case "k8s":
            kind = r.choice(K8S_KINDS)
            tail = hexs(r, 4) if kind in ("deploy", "svc", "job") else (
                f"{hexs(r, 9)}-{''.join(r.choice('bcdfghjklmnpqrstvwxz2456789') for _ in range(5))}"
                if kind == "pod" else str(r.randint(0, 4)))
            return f"{kind}/{svc}-{tail}"
        case "image":
            return f"ghcr.io/{p.org}/{svc}:{draw('semver', p, r).lstrip('v')}"
        case "digest":
            return f"sha256:{hexs(r, 64)}"
        case "semver":
            return (f"{r.choice(('', 'v'))}{r.randint(0, 4)}.{r.randint(0, 19)}.{r.randint(0, 9)}"
                    f"-{r.choice(PRE)}.{r.randint(1, 12)}")
        case "env":
            return f"{p.env_prefix}_{r.choice(WORDS).upper()}_{r.choice(WORDS).upper()}"
        case "config":
            return f"{r.choice(p.config_roots)}.{r.choice(WORDS)}-{r.choice(WORDS)}"
        case "flag":
            return f"--{r.choice(FLAGS)}"
        case "file_line":
            ext = {"larchway": "ts", "mossfield": "rs", "quarrybell": "py", "tidewick": "go",
                   "fernhollow": "java", "ashgrove": "tsx"}[p.name]
            name = f"{svc.replace('-', '_')}_{r.choice(WORDS)}.{ext}"
            loc = f"{r.randint(10, 899)}" + (f":{r.randint(1, 60)}" if r.random() < 0.6 else "")
            return f"{r.choice(p.dirs)}/{name}:{loc}"
        case "uuid":
            return str(uuid.UUID(int=r.getrandbits(128), version=4))
        case "arn":
            acct = "".join(r.choice("0123456789") for _ in range(12))
            return r.choice((f"arn:aws:iam::{acct}:role/{svc}-deployer",
                             f"arn:aws:sqs:{p.region}:{acct}:{svc}-events",
                             f"arn:aws:lambda:{p.region}:{acct}:function:{svc}-{r.choice(WORDS)}",
                             f"arn:aws:sns:{p.region}:{acct}:{svc}-alerts"))
        case "ip_port":
            host = f"10.{r.randint(0, 99)}.{r.randint(0, 255)}.{r.randint(2, 254)}"
            return f"{host}:{r.choice(PORTS)}"
        case "tf_address":
            mod, ty = r.choice(p.tf_modules), r.choice(TF_TYPES)
            index = r.choice((f"[{r.randint(0, 3)}]", f'["{svc}"]', ""))
            name = r.choice(("private", "public", "main", svc.replace("-", "_")))
            return f"module.{mod}.{ty}.{name}{index}"
    raise ValueError(form)


def near(form: str, ident: str, p: Project, r: random.Random) -> str:
    """An identifier of `form` sharing most of `ident`: what a careless match confuses it with."""
    match form:
        case "hash_short" | "hash_full":
            keep = r.randint(4, 6)
            return ident[:keep] + hexs(r, len(ident) - keep)
        case "hash_range":
            a, b = ident.split("..")
            return f"{a}..{hexs(r, len(b))}"
        case "gh_ref" | "gl_mr":
            return ident + str(r.randint(0, 9))
        case "cross_ref":
            return ident + str(r.randint(0, 9))
        case "ticket" | "cve":
            return ident + str(r.randint(0, 9)) if r.random() < 0.5 else ident[:-1]
        case "semver":
            head, _, n = ident.rpartition(".")
            return f"{head}.{int(n) + r.randint(1, 3)}"
        case "image":
            repo, _, tag = ident.rpartition(":")
            return f"{repo}:{near('semver', tag, p, r)}"
        case "digest":
            return ident[:13] + hexs(r, 58)
        case "env":
            return ident + "_" + r.choice(WORDS).upper()
        case "config":
            return ident.rsplit("-", 1)[0] + "-" + r.choice(WORDS)
        case "file_line":
            path, _, loc = ident.partition(":")
            return f"{path}:{loc.split(':')[0]}{r.randint(0, 9)}"
        case "ip_port":
            ip, _, _port = ident.partition(":")
            return f"{ip}:{r.choice(PORTS)}"
        case "tf_address":
            base = ident.split("[")[0]
            return f"{base}[{r.randint(4, 9)}]"
        case "k8s":
            kind, _, name = ident.partition("/")
            return f"{kind}/{name}{r.randint(0, 9)}"
    return draw(form, p, r)


# What an agent writes about an identifier of each form: {i} the identifier, {s} a service,
# {d} a folder, {w} a person, {n} a number.
NOTE: dict[str, tuple[str, ...]] = {
    "hash_short": (
        "The {s} regression where totals were rounded twice came in with commit {i}; reverting "
        "it locally brings the old figures back.",
        "{w} cherry-picked {i} onto the release branch to get the {s} timeout fix out early.",
        "Bisected the flaky {s} test to {i}: it made the fixture share one database between "
        "workers.",
    ),
    "hash_full": (
        "The last green build of {s} before the lockfile churn is {i}; use it as the bisect "
        "base.",
        "Deploy pinned {s} to commit {i} after the rollback, until the migration is fixed.",
        "Commit {i} removed the legacy {s} retry wrapper; anything that still imports it fails "
        "at startup.",
    ),
    "hash_range": (
        "The {s} changelog for this release covers {i}: {n} commits, mostly dependency bumps.",
        "Performance of {s} dropped by a third somewhere in {i}; bisecting that range next.",
    ),
    "gh_ref": (
        "PR {i} moved the {s} handlers to async and is the reason the old middleware order "
        "changed.",
        "Issue {i}: {s} drops the last page of results when the cursor lands on a deleted row.",
    ),
    "gl_mr": (
        "Merge request {i} split the {s} package out of the app; review apps broke until the "
        "chart was updated.",
        "{w} asked for the {s} feature flag removal to wait until MR {i} lands.",
    ),
    "cross_ref": (
        "The upstream fix for the {s} header parsing lives in {i}; we vendor a patch until it "
        "is released.",
        "Tracking the {s} rate-limit change in {i}, opened against the shared library.",
    ),
    "ticket": (
        "{i}: {s} sends duplicate confirmation emails when the worker retries after a timeout.",
        "{w} owns {i}, the {s} cleanup job that deletes drafts older than {n} days.",
        "Closed {i} by making the {s} export stream rows instead of building the whole file.",
    ),
    "cve": (
        "{i} in the XML parser affects {s}; bumped the transitive dependency and added an "
        "override.",
        "The scanner flags {i} on the {s} base image; it is in a tool we never call at runtime.",
    ),
    "ghsa": (
        "Dependabot raised {i} for the {s} YAML loader; we upgraded to the patched minor.",
        "Advisory {i} (prototype pollution) is reachable from {s} only through the admin "
        "import.",
    ),
    "rust_error": (
        "{s} does not compile after the borrow refactor: {i} on the cache entry held across "
        "the await; cloning the key fixed it.",
        "rustc reports {i} in the {s} builder when the closure captures self mutably; split "
        "the borrow into two scopes.",
    ),
    "ts_error": (
        "tsc fails with {i} in the {s} route after the schema types were regenerated; the "
        "optional field needs a guard.",
        "Strict mode surfaced {i} across {s}; {w} added narrowing helpers rather than casts.",
    ),
    "node_error": (
        "{s} crashes at boot with {i} since the dependency went ESM-only; pinned the previous "
        "major for now.",
        "Node throws {i} in {s} when the response is written after the timeout handler "
        "already replied.",
    ),
    "lint_code": (
        "The linter's {i} fires on every {s} module after the upgrade; we silenced it for "
        "generated code only.",
        "{w} enabled {i} in CI for {s}, which found {n} real problems in the handlers.",
    ),
    "sqlstate": (
        "Inserts from {s} fail with SQLSTATE {i} when two workers claim the same job; the "
        "upsert now retries once.",
        "Postgres returns {i} to {s} during the nightly reindex; the job backs off and "
        "retries.",
    ),
    "http": (
        "The {s} upstream answers {i} during the partner's maintenance window; we queue and "
        "replay those calls.",
        "Uploads to {s} above the proxy limit come back as {i}; the client now chunks them.",
    ),
    "k8s": (
        "{i} keeps restarting with OOMKilled since the {s} cache moved in-process; the limit "
        "is {n}Mi.",
        "{w} scaled {i} down to zero while the {s} backfill runs from the batch cluster.",
    ),
    "image": (
        "Staging runs {i} while production stays on the previous {s} image until the smoke "
        "tests pass.",
        "The {s} canary uses {i}; roll back by re-pinning the chart's image tag.",
    ),
    "digest": (
        "Production {s} is pinned by digest {i} so a re-pushed tag cannot change it.",
        "The vulnerable {s} base layer is {i}; rebuild anything that still references it.",
    ),
    "semver": (
        "{s} is on {i} of the client library because the stable line lacks streaming uploads.",
        "Release {i} of {s} went to the beta testers with the new onboarding flow.",
    ),
    "env": (
        "{i} must be set on {s} in every environment; without it the service starts but "
        "rejects every call.",
        "{w} renamed the {s} setting to {i}; the old name is still read as a fallback for a "
        "release.",
    ),
    "config": (
        "{i} is {n} in production for {s}; lower values made the nightly job starve.",
        "Raising {i} on {s} fixed the stalls under load; keep it above {n}.",
    ),
    "flag": (
        "The {s} build needs {i} in CI or the step dies on the large fixtures.",
        "{w} added {i} to the {s} test command to make the flaky suite deterministic.",
    ),
    "file_line": (
        "The null dereference in {s} is at {i}, where the optional customer is read before "
        "the lookup finishes.",
        "{s} leaks a connection at {i}: the early return skips the release.",
        "Set the breakpoint at {i} to see the {s} payload before it is normalised.",
    ),
    "uuid": (
        "The {s} tenant that hits the quota every night is {i}; support knows about it.",
        "Replay the failed {s} job {i} after the fix; its payload is kept for a week.",
    ),
    "arn": (
        "{s} assumes {i} to publish; the trust policy allows only the CI role.",
        "Alarms for {s} go to {i}, which pages the on-call channel.",
    ),
    "ip_port": (
        "{s} talks to the primary at {i}; the replica is read-only and lags under load.",
        "{w} opened {i} in the security group for the {s} migration window only.",
    ),
    "tf_address": (
        "terraform plan wants to replace {i} because the {s} tags changed; import it before "
        "applying.",
        "{i} was removed from state by hand during the {s} migration; a plan now recreates it.",
    ),
}

# A question around an identifier, by form: {i} the identifier as the shape writes it.
ASK: dict[str, tuple[str, ...]] = {
    "hash_short": ("what did commit {i} change?", "why was {i} cherry-picked?"),
    "hash_full": ("what's special about {i}?", "what happened in commit {i}"),
    "hash_range": ("what changed in {i}?", "anything notable in {i}"),
    "gh_ref": ("what was {i} about?", "what did PR {i} do?"),
    "gl_mr": ("what does {i} change?", "status of MR {i}?"),
    "cross_ref": ("what is {i}?", "why do we watch {i}"),
    "ticket": ("what is {i}?", "who has {i}?", "{i} status"),
    "cve": ("are we affected by {i}?", "what did we do about {i}"),
    "ghsa": ("what did we do about {i}?", "is {i} reachable?"),
    "rust_error": ("how did we fix {i}?", "{i} in the build again, what was it last time?"),
    "ts_error": ("how did we fix {i}?", "what causes {i} here?"),
    "node_error": ("why do we get {i}?", "how did we get past {i}?"),
    "lint_code": ("what did we decide about {i}?", "why is {i} on?"),
    "sqlstate": ("what causes SQLSTATE {i}?", "why do we see {i} from postgres?"),
    "http": ("why do we get {i}?", "what do we do on {i}?"),
    "k8s": ("why is {i} restarting?", "what's going on with {i}?"),
    "image": ("where does {i} run?", "what is {i}?"),
    "digest": ("what is {i}?", "which image is {i}?"),
    "semver": ("why are we on {i}?", "what went out in {i}?"),
    "env": ("what is {i} for?", "do we need {i}?"),
    "config": ("what should {i} be?", "what is {i} set to?"),
    "flag": ("why do we pass {i}?", "what is {i} for in CI?"),
    "file_line": ("what's wrong at {i}?", "what happens at {i}?"),
    "uuid": ("what is {i}?", "which tenant is {i}?"),
    "arn": ("what uses {i}?", "what is {i} for?"),
    "ip_port": ("what is {i}?", "what runs at {i}?"),
    "tf_address": ("why does the plan touch {i}?", "what happened to {i}?"),
}
# shapes of a bare identifier: (name, how it writes the identifier)
BARE: tuple[tuple[str, Callable[[str], str]], ...] = (
    ("bare", lambda i: i), ("backticks", lambda i: f"`{i}`"), ("lower", str.lower),
    ("punct", lambda i: i + "?"), ("punct", lambda i: i + "."))
# forms whose prefix is how people often cite them
PREFIXED: dict[str, Callable[[str], str]] = {
    "hash_full": lambda i: i[:r_len(i)], "digest": lambda i: i[7:19],
    "uuid": lambda i: i.split("-")[0]}


def r_len(ident: str) -> int:
    return 7 if int(ident[0], 16) % 2 else 10


def holders(ident: str, texts: dict[str, str]) -> list[str]:
    """The notes whose text holds `ident` with no letter, digit or underscore beside it."""
    pat = re.compile(rf"(?<![A-Za-z0-9_]){re.escape(ident)}(?![A-Za-z0-9_])", re.IGNORECASE)
    return [k for k, t in texts.items() if pat.search(t)]


def fill(template: str, ident: str, p: Project, r: random.Random) -> str:
    return template.format(i=ident, s=r.choice(p.services), d=r.choice(p.dirs),
                           w=r.choice(p.people), n=r.randint(2, 400))


def project_data(p: Project, r: random.Random) -> dict[str, Any]:
    forms = [f for f in FORMS for _ in range(2 if f in COMMON else 1)]
    used: set[str] = set()

    def fresh(form: str, make: Callable[[], str]) -> str:
        for _ in range(50):
            ident = make()
            if ident.lower() not in used and not any(
                    ident.lower() in u or u in ident.lower() for u in used
                    if form in ("rust_error", "ts_error", "lint_code", "sqlstate", "http",
                                "node_error")):
                used.add(ident.lower())
                return ident
        raise RuntimeError(f"no fresh {form}")

    real = [(f, fresh(f, partial(draw, f, p, r))) for f in forms]
    notes: list[dict[str, Any]] = [{"key": f"{f}-{n}", "form": f, "ident": i, "real": True,
              "content": fill(r.choice(NOTE[f]), i, p, r)} for n, (f, i) in enumerate(real)]
    fakes: list[dict[str, Any]] = []
    for n in range(LOOKALIKES):
        form, ident = r.choice(real)
        try:
            made = fresh(form, partial(near, form, ident, p, r) if n % 2 == 0
                         else partial(draw, form, p, r))
        except RuntimeError:  # every near one of it drawn already
            made = fresh(form, partial(draw, form, p, r))
        fakes.append({"key": f"~{form}-{n}", "form": form, "ident": made, "real": False,
                      "content": fill(r.choice(NOTE[form]), made, p, r)})
    texts = {x["key"]: x["content"] for x in notes + fakes}
    questions = []
    for x in notes:
        form, ident = x["form"], x["ident"]
        shapes = ["ask", "bare"] if r.random() < 0.5 else ["ask"]
        if form in PREFIXED:
            shapes.append("prefix")
        if form == "hash_range":
            shapes.append("range_end")
        for shape in shapes:
            if shape == "ask":
                text = r.choice(ASK[form]).format(i=r.choice((ident, f"`{ident}`")))
            elif shape == "bare":
                shape, write = r.choice(BARE)
                text = write(ident)
            elif shape == "prefix":
                text = r.choice(("{}", "what is {}?")).format(PREFIXED[form](ident))
            else:
                text = ident.split("..")[r.randint(0, 1)]
            cited = (PREFIXED[form](ident) if shape == "prefix" else
                     text if shape == "range_end" else ident)
            if holders(cited, texts) != [x["key"]] and not (
                    shape == "prefix" and [k for k in texts if cited.lower() in
                                           texts[k].lower()] == [x["key"]]):
                continue
            questions.append({"text": text, "expected": [x["key"]], "form": form,
                              "shape": shape})
    absent: list[dict[str, str]] = []
    while len(absent) < ABSENT:
        form, ident = r.choice(real)
        made = near(form, ident, p, r) if len(absent) % 2 == 0 else draw(form, p, r)
        if made.lower() in used or holders(made, texts) or form.startswith("hash") and any(
                made.lower() in t.lower() for t in texts.values()):
            continue
        used.add(made.lower())
        shape = "ask" if r.random() < 0.5 else "bare"
        text = r.choice(ASK[form]).format(i=made) if shape == "ask" else made
        absent.append({"text": text, "form": form, "shape": shape})
    return {"name": f"ident-{p.name}", "description": p.description,
            "notes": [{k: x[k] for k in ("key", "form", "real", "content")}
                      for x in _interleave(notes, fakes, r)],
            "questions": questions, "absent": absent}


def _interleave(real: list[dict[str, Any]], fakes: list[dict[str, Any]],
                r: random.Random) -> list[dict[str, Any]]:
    """The notes in the order written: the real ones in order, look-alikes spread between."""
    slots = sorted(r.sample(range(len(real) + len(fakes)), len(real)))
    out: list[dict[str, Any]] = []
    ri = fi = 0
    for at in range(len(real) + len(fakes)):
        if ri < len(real) and at == slots[ri]:
            out.append(real[ri])
            ri += 1
        else:
            out.append(fakes[fi])
            fi += 1
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--seed", type=int, default=39)
    args = parser.parse_args(argv)
    r = random.Random(args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    for p in PROJECTS:
        data = project_data(p, r)
        (args.out / f"{p.name}.json").write_text(json.dumps(data, indent=1) + "\n",
                                                 encoding="utf-8")
        print(p.name, len(data["notes"]), len(data["questions"]), len(data["absent"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
