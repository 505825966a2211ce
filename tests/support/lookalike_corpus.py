"""Ordinary technical notes that look like secrets to a careless detector: commit ids, SHA-256
digests, UUIDs, base64 sample data, lockfile hashes, image digests, long identifiers, URLs with
query strings, versions, CSS colours, fixture names, and prose about credentials without any.
Seeded, so a failure names the same note on every run."""

from __future__ import annotations

import hashlib
import json
import random
import uuid
from collections.abc import Callable

from tests.support.secret_corpus import (
    ALNUM,
    B64,
    DIGITS,
    HEX,
    LOWER,
    SEED,
    UPPER,
    URLSAFE,
    b64_of,
    rand,
)

_Family = Callable[[random.Random], str]
_WORDS = ("payment", "ledger", "invoice", "session", "token", "secret", "password", "user",
          "account", "refresh", "rotation", "webhook", "credentials", "key", "cache", "retry")
_TEXTS = ("hello world", "The quick brown fox jumps over the lazy dog.", "user:example",
          '{"id": 42, "name": "demo"}', "lorem ipsum dolor sit amet, consectetur",
          "name,email\nada,ada@example.com\n", "<svg xmlns='http://www.w3.org/2000/svg'/>")


def _sha(rng: random.Random) -> str:
    return hashlib.sha1(rng.randbytes(16)).hexdigest()


def _sha256(rng: random.Random) -> str:
    return hashlib.sha256(rng.randbytes(16)).hexdigest()


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _ident(rng: random.Random, n: int = 4) -> str:
    return "_".join(rng.choice(_WORDS) for _ in range(n))


def commits(rng: random.Random) -> str:
    sha = _sha(rng)
    return rng.choice([
        f"Fixed in commit {sha} on main; the token refresh race is gone.",
        f"git revert {sha} restored the old secret rotation schedule.",
        f"Cherry-picked {sha[:10]} onto release/2.4 after the password reset fix.",
        f"Bisect says {sha} is the first bad commit (auth middleware refactor).",
        f"merge-base main feature/rotate-keys = {sha}",
        f"The token cache bug landed in {sha[:12]} and was reverted in {_sha(rng)[:12]}.",
    ])


def digests(rng: random.Random) -> str:
    digest = _sha256(rng)
    return rng.choice([
        f"sha256sum neo4j-community-5.26.1-unix.tar.gz -> {digest}",
        f"SHA256 (kg-brain-0.1.0.tar.gz) = {digest}",
        f"Verified the release checksum {digest} against the signed manifest.",
        f"The secret file's SHA-256 is logged for audit: {digest}",
        f"cache key for the embeddings: {digest}",
        f"Content hash of the migration file: {digest[:40]}",
    ])


def uuids(rng: random.Random) -> str:
    value = _uuid(rng)
    return rng.choice([
        f"request id {value} timed out after 30 s in the token endpoint",
        f"Each test uses project test-{value} to stay isolated.",
        f"trace_id={value} span_id={rand(rng, HEX, 16)} status=ERROR",
        f"Idempotency key {value} was replayed twice by the payment worker.",
        f"The session {value} belongs to tenant {_uuid(rng)}.",
        f"Neo4j element id 4:{value}:{rng.randint(0, 99999)} for the failing note.",
    ])


def base64_samples(rng: random.Random) -> str:
    text = rng.choice(_TEXTS)
    encoded = b64_of(text.encode())
    png = b64_of(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + rng.randbytes(24))
    return rng.choice([
        f"echo '{encoded}' | base64 -d prints {text!r}.",
        f"The fixture body is base64 of the text: {encoded}",
        f'<img alt="logo" src="data:image/png;base64,{png}">',
        f"Kafka stores the value as {encoded}; decode it before comparing.",
        f"JSON payload example (base64): {b64_of(json.dumps({'event': text}).encode())}",
        f"A ConfigMap keeps binaryData.logo: {png}",
    ])


def lockfiles(rng: random.Random) -> str:
    digest = _sha256(rng)
    return rng.choice([
        f'"node_modules/left-pad": {{"version": "1.3.0", "integrity": '
        f'"sha512-{b64_of(rng.randbytes(64))}"}}',
        f"requests==2.32.3 \\\n    --hash=sha256:{digest}",
        f'{{file = "pydantic-2.9.2-py3-none-any.whl", hash = "sha256:{digest}"}}',
        f'name = "serde"\nversion = "1.0.210"\nchecksum = "{digest}"',
        f"github.com/pkg/errors v0.9.1 h1:{b64_of(rng.randbytes(32))}",
        f'left-pad@^1.3.0:\n  resolved "https://registry.yarnpkg.com/left-pad/-/left-pad-1.3.0.tgz'
        f'#{_sha(rng)}"\n  integrity sha1-{b64_of(rng.randbytes(20))}',
    ])


def images(rng: random.Random) -> str:
    digest = _sha256(rng)
    return rng.choice([
        f"FROM python:3.12-slim@sha256:{digest}",
        f"kubectl set image deploy/api api=ghcr.io/acme/api@sha256:{digest}",
        f"docker logs {digest[:12]} shows the token refresh loop.",
        f"Container {digest} exited with code 137 (OOM).",
        f"Image ID sha256:{digest}, 412 MB, built from commit {_sha(rng)[:7]}",
        f"Pinned neo4j:5.26.1-community@sha256:{digest} in docker-compose.yml",
    ])


def identifiers(rng: random.Random) -> str:
    pod = f"payments-api-{rand(rng, HEX, 10)}-{rand(rng, LOWER + DIGITS, 5)}"
    return rng.choice([
        f"test_{_ident(rng, 6)} fails only on CI.",
        f"AbstractSingletonProxyFactoryBean and {rng.choice(['Token', 'Secret', 'Password'])}"
        "RotationServiceImplementationFactoryV2 are the Spring beans involved.",
        f"kubectl logs {pod} -c app --since=1h",
        f"com.acme.payments.internal.{rng.choice(['token', 'secret'])}.RefreshTokenRepositoryImpl"
        " leaks connections.",
        f"arn:aws:iam::{rand(rng, DIGITS, 12)}:role/DeployRole-{rand(rng, UPPER + DIGITS, 12)}",
        f"module.{_ident(rng, 3)}.aws_secretsmanager_secret.{_ident(rng, 2)} needs a replace.",
    ])


def urls(rng: random.Random) -> str:
    return rng.choice([
        f"https://docs.google.com/spreadsheets/d/{rand(rng, URLSAFE, 44)}/edit#gid=0",
        f"https://github.com/acme/api/pull/{rng.randint(1, 9999)}?notification_referrer_id="
        f"NT_{rand(rng, URLSAFE, 40)}",
        f"https://github.com/login/oauth/authorize?client_id=Iv1.{rand(rng, HEX, 16)}&state="
        f"{rand(rng, URLSAFE, 32)}&code_challenge={rand(rng, URLSAFE, 43)}",
        f"https://www.google.com/search?q=neo4j+vector+index&sourceid=chrome&ie=UTF-8&ved="
        f"{rand(rng, URLSAFE, 40)}",
        f"https://api.acme.io/v2/invoices?page={rng.randint(2, 9)}&per_page=100&cursor="
        f"{b64_of(rng.randbytes(24), True)}",
        f"https://acme-artifacts.s3.amazonaws.com/builds/app.zip?versionId="
        f"{rand(rng, ALNUM + '._', 32)}",
    ])


def versions(rng: random.Random) -> str:
    a, b, c = rng.randint(0, 9), rng.randint(0, 40), rng.randint(0, 99)
    return rng.choice([
        f"Upgraded neo4j {a}.{b}.{c} -> {a}.{b}.{c + 1}; the token index rebuilt itself.",
        f"Version {a}.{b}.{c}-rc.1+build.{rng.randint(2020, 2025)}0501.{_sha(rng)[:7]} is live.",
        f"go.mod pins golang.org/x/crypto v0.0.0-{rand(rng, DIGITS, 14)}-{_sha(rng)[:12]}",
        f"User-Agent: Mozilla/5.0 Chrome/124.0.{rand(rng, DIGITS, 4)}.{rng.randint(10, 200)}",
        f"Python 3.12.{c} (main, Jun  6 2024, 18:26:44) [GCC 11.4.0] on linux",
        f"openssl version: OpenSSL 3.0.{c} 24 Oct 2023 (Library: OpenSSL 3.0.{c})",
    ])


def colours(rng: random.Random) -> str:
    def colour() -> str:
        return "#" + rand(rng, rng.choice([HEX, HEX.upper()]), rng.choice([3, 6, 8]))
    return rng.choice([
        f".btn-primary {{ color: {colour()}; background: {colour()}; }}",
        f"background: linear-gradient(90deg, {colour()}, {colour()}, {colour()});",
        f"Brand palette: primary {colour()}, accent {colour()}, danger {colour()}.",
        f"theme.json: {json.dumps({'primary': colour(), 'secondary': colour()})}",
    ])


def fixtures(rng: random.Random) -> str:
    name = _ident(rng, 5)
    return rng.choice([
        f"tests/fixtures/{name}.json is loaded by conftest.py",
        f"pytest tests/unit/test_{name}.py::test_{_ident(rng, 3)}[case{rng.randint(0, 9)}] -x",
        f"The fixture `fake_{rng.choice(['api_key', 'token', 'secret'])}_env` sets dummy values.",
        f"Snapshot __snapshots__/{name}.ambr changed after the rename.",
    ])


def credential_prose(rng: random.Random) -> str:
    return rng.choice([
        "Store the Datadog API key in Vault under secret/data/datadog; the agent reads DD_API_KEY.",
        "Rotate the Twilio auth token monthly and never commit it.",
        "password: ${DB_PASSWORD}\nuser: ${DB_USER}",
        "env:\n  GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}\n  NPM_TOKEN: ${{ secrets.NPM_TOKEN }}",
        "api_key = os.environ['PARTNER_API_KEY']  # never a literal",
        "The token bucket refills 10 tokens per second; burst is 40.",
        f"JWT_SECRET must be at least 32 bytes: openssl rand -base64 {rng.choice([32, 48, 64])}",
        ".env.example:\nAPI_KEY=your-api-key-here\nSECRET_KEY=changeme\nSTRIPE_KEY=sk_test_xxx",
        "Primary key is (project, zk_id); the secondary index covers updated_at.",
        f"secret_name: prod-db-credentials-v{rng.randint(2, 9)}  # AWS Secrets Manager",
        f"token expires at 2024-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}T12:00:00Z; refresh first",
        "The token owner is ci-bot2@acme.io",
        "Password manager: 1Password, vault \"Engineering\"",
        "API key for prod: see 1Password item \"Datadog prod\"",
        "The secret is stored in AWS Secrets Manager as prod/api/DB_CREDENTIALS-v2",
        "token endpoint is https://auth.acme.io/oauth/token",
        f"Access key rotation runs via Lambda rotate-keys-prod-v{rng.randint(2, 9)}",
        "Signing key id kid=2024-05-rsa, alg RS256",
        "credentials file: ~/.aws/credentials, profile acme-prod",
        "token=abc is rejected because the validator wants 32+ chars",
        "Set the header X-Api-Key from the PARTNER_API_KEY variable",
        "secrets: [db-password, api-key, jwt-signing-key]",
        f"Creds rotated by Terraform module secrets-rotation-v1.{rng.randint(0, 9)}.2",
        "The password reset token TTL is 15m; tokens are single use (see PR #4411)",
        "POST /token HTTP/1.1 returns 400 when the grant type is missing",
    ])


def configs_and_logs(rng: random.Random) -> str:
    return rng.choice([
        f"{rng.randint(10, 23)}:00:03.123Z INFO token refresh ok user={rng.randint(1, 999)} "
        f"session={rand(rng, HEX, 8)} expires_in=3600 trace={rand(rng, HEX, 32)}",
        "neo4j.exceptions.ServiceUnavailable: Failed to read from defunct connection "
        f"IPv4Address(('127.0.0.1', {rng.randint(7000, 7999)}))",
        "services:\n  neo4j:\n    image: neo4j:5.26.1-community\n    environment:\n"
        "      NEO4J_AUTH: neo4j/${NEO4J_PASSWORD}",
        'resource "aws_secretsmanager_secret_version" "db" {\n  secret_id = '
        "aws_secretsmanager_secret.db.id\n  secret_string = jsonencode({ password = "
        "random_password.db.result })\n}",
        "kubectl create secret generic db-creds --from-literal=username=app "
        "--from-file=password=./pw.txt",
        f"apiVersion: v1\nkind: ConfigMap\ndata:\n  CACHE_KEY_PREFIX: kg-brain-v{rng.randint(2, 9)}"
        "\n  LOG_LEVEL: info",
        f"openssl enc -aes-256-cbc -K {rand(rng, HEX, 64)} -iv {rand(rng, HEX, 32)} -in a -out b",
        f"git log --oneline\n{_sha(rng)[:7]} Fix token refresh race\n{_sha(rng)[:7]} Rotate keys",
        f"RECORD: kg_brain/redact.py,sha256={b64_of(rng.randbytes(32), True)[:43]},5120",
        f"SELECT id FROM sessions WHERE token_hash = '{_sha256(rng)}';",
        "for token in tokenize.generate_tokens(io.StringIO(line).readline):"
        f"  # L{rng.randint(1, 9)}",
        f"model = HuggingFaceH4/zephyr-orpo-141b-A35b-v0.{rng.randint(1, 9)}",
    ])


def keys_and_fingerprints(rng: random.Random) -> str:
    blob = "AAAAC3NzaC1lZDI1NTE5AAAAI" + rand(rng, B64, 43)
    return rng.choice([
        f"256 SHA256:{b64_of(rng.randbytes(32)).rstrip('=')} deploy@ci (ED25519)",
        f"authorized_keys: ssh-ed25519 {blob} ada@laptop",
        f"gpg --recv-keys {rand(rng, HEX.upper(), 16)}",
        f"Server host key fingerprint MD5:{':'.join(rand(rng, HEX, 2) for _ in range(16))}",
        f"The public key is ssh-ed25519 {blob} (safe to share).",
    ])


def ids_in_logs(rng: random.Random) -> str:
    return rng.choice([
        f"x-amz-cf-id: {b64_of(rng.randbytes(42), True)}",
        f"ETag: \"{rand(rng, HEX, 32)}\" matches, so the upload was skipped.",
        f"Stripe charge ch_{rand(rng, ALNUM, 24)} refunded; customer cus_{rand(rng, ALNUM, 14)}.",
        f"Sentry event {rand(rng, HEX, 32)} has the full stack.",
        f"Mongo ObjectId('{rand(rng, HEX, 24)}') is the duplicated user.",
        f"Celery task {_uuid(rng)} retried 3 times (token refresh).",
    ])


def code(rng: random.Random) -> str:
    return rng.choice([
        "token = get_token()\nif token == expected_token:\n    return True",
        "password_hash = bcrypt.hashpw(password.encode(), bcrypt.gensalt())",
        f"secret = hmac.new(key, msg, hashlib.sha256).hexdigest()  # -> {_sha256(rng)}",
        f"assert sha256(payload) == '{_sha256(rng)}'",
        f"EXPECTED_DIGEST = \"{_sha256(rng)}\"",
        f"const sessionTokenTtlSeconds = {rng.randint(60, 86400)};",
    ])


FAMILIES: tuple[_Family, ...] = (commits, digests, uuids, base64_samples, lockfiles, images,
                                 identifiers, urls, versions, colours, fixtures, credential_prose,
                                 configs_and_logs, keys_and_fingerprints, ids_in_logs, code)


def ordinary_notes(seed: int = SEED, per_family: int = 24) -> list[str]:
    """`per_family` notes from each family, deduplicated, order kept."""
    rng = random.Random(seed)
    notes = [family(rng) for family in FAMILIES for _ in range(per_family)]
    return list(dict.fromkeys(notes))
