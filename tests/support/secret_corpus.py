"""A seeded corpus for the redaction tests: secrets generated in the real formats of 30-odd
services (random characters, never real keys) inside the notes an agent writes, and ordinary
technical notes full of look-alikes (digests, commit ids, UUIDs, base64 samples, lockfile
hashes, image digests, long identifiers, URLs, versions, colours, fixture names)."""

from __future__ import annotations

import base64
import json
import random
import string
import uuid
from collections.abc import Callable
from dataclasses import dataclass

UPPER = string.ascii_uppercase
LOWER = string.ascii_lowercase
DIGITS = string.digits
ALNUM = UPPER + LOWER + DIGITS
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"
HEX = "0123456789abcdef"
SEED = 20


@dataclass(frozen=True)
class SecretNote:
    text: str
    secret: str  # the value that must not survive redaction
    kind: str  # the format generated (coverage), not necessarily the kind reported
    style: str


@dataclass(frozen=True)
class Format:
    """How to make one kind of secret and how people name it in config and prose."""

    kind: str
    make: Callable[[random.Random], str]
    env: str  # its variable in .env files and shells
    service: str  # how a note names the service
    label: str  # how a note names the credential
    styles: tuple[str, ...] = ("labelled", "unlabelled", "bare", "yaml", "env", "json", "shell")


def rand(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def b64_of(data: bytes, urlsafe: bool = False) -> str:
    encoded = base64.urlsafe_b64encode(data) if urlsafe else base64.b64encode(data)
    return encoded.decode()


def _password(rng: random.Random) -> str:
    return rand(rng, ALNUM, rng.randint(6, 10)) + rng.choice("!#%^*-_") + rand(rng, ALNUM, 5)


def _jwt(rng: random.Random) -> str:
    header = b64_of(json.dumps({"alg": "HS256", "typ": "JWT"}).encode(), True).rstrip("=")
    claims = {"sub": str(rng.randint(10**6, 10**9)),
              "iat": rng.randint(1_600_000_000, 1_800_000_000)}
    payload = b64_of(json.dumps(claims).encode(), True).rstrip("=")
    return f"{header}.{payload}.{rand(rng, URLSAFE, 43)}"


def _pem_body(rng: random.Random) -> list[str]:
    return ["MIIEvQIBADANBgkqhkiG9w0BAQEFAASC" + rand(rng, B64, 32)] + [
        rand(rng, B64, 64) for _ in range(4)]


SINGLE_LINE = ("labelled", "unlabelled", "bare", "yaml", "env", "json", "shell")
CONTEXT_ONLY = ("labelled", "unlabelled", "yaml", "env", "json", "shell")  # hex: needs a word
FORMATS: tuple[Format, ...] = (
    Format("aws_access_key", lambda r: "AKIA" + rand(r, UPPER + "234567", 16),
           "AWS_ACCESS_KEY_ID", "AWS", "access key id"),
    Format("aws_secret_key", lambda r: rand(r, B64, 40),
           "AWS_SECRET_ACCESS_KEY", "AWS", "secret access key"),
    Format("github_token", lambda r: r.choice(["ghp_", "gho_", "ghs_"]) + rand(r, ALNUM, 36),
           "GITHUB_TOKEN", "GitHub", "personal access token"),
    Format("github_fine_grained", lambda r: f"github_pat_{rand(r, ALNUM, 22)}_{rand(r, ALNUM, 59)}",
           "GH_PAT", "GitHub", "fine-grained token"),
    Format("gitlab_token", lambda r: "glpat-" + rand(r, URLSAFE, 20),
           "GITLAB_TOKEN", "GitLab", "access token"),
    Format("slack_token", lambda r: f"xoxb-{rand(r, DIGITS, 12)}-{rand(r, DIGITS, 13)}-"
                                    f"{rand(r, ALNUM, 24)}",
           "SLACK_BOT_TOKEN", "Slack", "bot token"),
    Format("slack_webhook", lambda r: "https://hooks.slack.com/services/"
                                      f"T{rand(r, UPPER + DIGITS, 10)}"
                                      f"/B{rand(r, UPPER + DIGITS, 10)}/{rand(r, ALNUM, 24)}",
           "SLACK_WEBHOOK_URL", "Slack", "incoming webhook"),
    Format("openai_key", lambda r: f"sk-proj-{rand(r, URLSAFE, 58)}T3BlbkFJ{rand(r, URLSAFE, 58)}",
           "OPENAI_API_KEY", "OpenAI", "API key"),
    Format("anthropic_key", lambda r: f"sk-ant-api03-{rand(r, URLSAFE, 93)}AA",
           "ANTHROPIC_API_KEY", "Anthropic", "API key"),
    Format("stripe_key", lambda r: r.choice(["sk_live_", "rk_live_"]) + rand(r, ALNUM, 48),
           "STRIPE_SECRET_KEY", "Stripe", "secret key"),
    Format("google_api_key", lambda r: "AIza" + rand(r, URLSAFE, 35),
           "GOOGLE_API_KEY", "Google Maps", "API key"),
    Format("azure_client_secret",
           lambda r: f"{rand(r, ALNUM, 3)}{rand(r, DIGITS, 1)}Q~{rand(r, ALNUM + '_~.-', 34)}",
           "AZURE_CLIENT_SECRET", "Azure AD", "client secret"),
    Format("azure_storage_key", lambda r: rand(r, B64, 86) + "==",
           "AZURE_STORAGE_KEY", "Azure Storage", "account key"),
    Format("twilio_api_key", lambda r: "SK" + rand(r, HEX, 32),
           "TWILIO_API_KEY", "Twilio", "API key SID"),
    Format("twilio_auth_token", lambda r: rand(r, HEX, 32),
           "TWILIO_AUTH_TOKEN", "Twilio", "auth token", CONTEXT_ONLY),
    Format("sendgrid_key", lambda r: f"SG.{rand(r, URLSAFE, 22)}.{rand(r, URLSAFE, 43)}",
           "SENDGRID_API_KEY", "SendGrid", "API key"),
    Format("mailgun_key", lambda r: "key-" + rand(r, HEX, 32),
           "MAILGUN_API_KEY", "Mailgun", "private API key"),
    Format("mailgun_signing_key",
           lambda r: f"{rand(r, HEX, 32)}-{rand(r, HEX, 8)}-{rand(r, HEX, 8)}",
           "MAILGUN_WEBHOOK_SIGNING_KEY", "Mailgun", "webhook signing key"),
    Format("digitalocean_token", lambda r: r.choice(["dop_v1_", "doo_v1_"]) + rand(r, HEX, 64),
           "DIGITALOCEAN_TOKEN", "DigitalOcean", "personal access token"),
    Format("discord_bot_token",  # the first part is the bot's numeric id in base64
           lambda r: f"{b64_of(str(r.randint(10**16, 10**19 - 1)).encode()).rstrip('=')}."
                     f"{rand(r, URLSAFE, 6)}.{rand(r, URLSAFE, 38)}",
           "DISCORD_BOT_TOKEN", "Discord", "bot token"),
    Format("discord_webhook", lambda r: f"https://discord.com/api/webhooks/{rand(r, DIGITS, 18)}/"
                                        f"{rand(r, URLSAFE, 68)}", "DISCORD_WEBHOOK", "Discord",
           "webhook"),
    Format("telegram_bot_token", lambda r: f"{r.randint(10**8, 10**10)}:AA{rand(r, URLSAFE, 33)}",
           "TELEGRAM_BOT_TOKEN", "Telegram", "bot token"),
    Format("shopify_token", lambda r: r.choice(["shpat_", "shpss_"]) + rand(r, HEX, 32),
           "SHOPIFY_ACCESS_TOKEN", "Shopify", "admin API access token"),
    Format("square_token", lambda r: r.choice(["EAAA" + rand(r, URLSAFE, 60),
                                               "sq0atp-" + rand(r, URLSAFE, 22)]),
           "SQUARE_ACCESS_TOKEN", "Square", "access token"),
    Format("pypi_token", lambda r: "pypi-AgEIcHlwaS5vcmc" + rand(r, URLSAFE, 120),
           "TWINE_PASSWORD", "PyPI", "upload token"),
    Format("dockerhub_token", lambda r: "dckr_pat_" + rand(r, URLSAFE, 27),
           "DOCKERHUB_TOKEN", "Docker Hub", "access token"),
    Format("heroku_key", lambda r: "HRKU-AA" + rand(r, URLSAFE, 58),
           "HEROKU_API_KEY", "Heroku", "API key"),
    Format("heroku_legacy_key", lambda r: str(uuid.UUID(int=r.getrandbits(128), version=4)),
           "HEROKU_API_KEY", "Heroku", "API key", CONTEXT_ONLY),
    Format("datadog_api_key", lambda r: rand(r, HEX, 32),
           "DD_API_KEY", "Datadog", "API key", CONTEXT_ONLY),
    Format("datadog_app_key", lambda r: rand(r, HEX, 40),
           "DD_APP_KEY", "Datadog", "application key", CONTEXT_ONLY),
    Format("npm_token", lambda r: "npm_" + rand(r, ALNUM, 36), "NPM_TOKEN", "npm", "publish token"),
    Format("huggingface_token", lambda r: "hf_" + rand(r, UPPER + LOWER, 34),
           "HF_TOKEN", "Hugging Face", "access token"),
    Format("vault_token", lambda r: "hvs." + rand(r, URLSAFE, 90),
           "VAULT_TOKEN", "Vault", "root token"),
    Format("jwt", _jwt, "SESSION_JWT", "the admin UI", "session JWT"),
    Format("password", _password, "DB_PASSWORD", "Postgres", "password",
           ("labelled", "unlabelled", "yaml", "env", "json", "shell")),
    Format("generic_api_key", lambda r: rand(r, ALNUM, r.randint(32, 48)),
           "PARTNER_API_KEY", "the partner API", "API key"),
)


def _json_key(env: str) -> str:
    words = env.lower().split("_")
    return words[0] + "".join(w.title() for w in words[1:])


def _single_line(fmt: Format, value: str, style: str, rng: random.Random) -> str:
    service, label, env = fmt.service, fmt.label, fmt.env
    yaml_key = env.lower().split("_", 1)[-1] if "_" in env else env.lower()
    if style == "labelled":
        return rng.choice([
            f"The {service} {label} is {value}; rotate it every 90 days.",
            f"{service} {label}: {value} (stored in 1Password too).",
            f"New {label} for {service} = {value}, the old one is revoked.",
        ])
    if style == "unlabelled":
        return rng.choice([
            f"Deploy creds for {service}: {value}, expires end of quarter.",
            f"{service} {label.split()[-1]} {value} works for staging and prod.",
            f"Rotated the {service} {label} today, new one is {value}",
        ])
    if style == "bare":  # no word naming the secret anywhere near it
        return rng.choice([
            f"Pasted {value} into the {service} settings page and the webhook started firing.",
            f"{service} calls from the runner work again after swapping in {value} yesterday.",
            f"Use {value} when the nightly sync asks; it belongs to the {service} integration.",
        ])
    if style == "yaml":
        return (f"config/production.yaml:\n{service.lower().replace(' ', '_')}:\n"
                f"  {yaml_key}: {value}\n  region: eu-west-1\n  timeout_s: 30")
    if style == "env":
        return f"Staging .env after the migration:\nLOG_LEVEL=info\n{env}={value}\nWORKERS=4"
    if style == "json":
        return json.dumps({_json_key(env): value, "timeout": 30, "retries": 3}, indent=2)
    return rng.choice([
        f"export {env}='{value}' && ./scripts/deploy.sh --env staging",
        f"{env}={value} uv run pytest tests/integration -x",
        f"docker run --rm -e {env}=\"{value}\" ghcr.io/acme/worker:2.4.1",
    ])


def _multi_line(rng: random.Random) -> list[SecretNote]:
    """Private keys, service-account JSON, Kubernetes secrets, .npmrc, URLs and the issue's note."""
    notes: list[SecretNote] = []
    for algo in ("RSA ", "EC ", "OPENSSH ", ""):
        body = _pem_body(rng)
        pem = "\n".join([f"-----BEGIN {algo}PRIVATE KEY-----", *body,
                         f"-----END {algo}PRIVATE KEY-----"])
        notes.append(SecretNote(f"The deploy key for the build box:\n{pem}\nAdded to CI.",
                                body[2], "private_key", "pem"))
        account = {"type": "service_account", "project_id": f"acme-{rand(rng, LOWER, 6)}",
                   "private_key_id": rand(rng, HEX, 40),
                   "private_key": pem.replace(algo, "") + "\n",
                   "client_email": "ci@acme.iam.gserviceaccount.com"}
        notes.append(SecretNote(f"GCP service account for the exporter:\n{json.dumps(account)}",
                                body[3], "gcp_service_account", "json_file"))
    for _ in range(3):
        password = _password(rng)
        encoded = b64_of(password.encode())
        notes.append(SecretNote(
            "kubectl get secret db-creds -o yaml\napiVersion: v1\nkind: Secret\nmetadata:\n"
            f"  name: db-creds\ntype: Opaque\ndata:\n  username: {b64_of(b'app')}\n"
            f"  password: {encoded}\n", encoded, "kubernetes_secret", "manifest"))
        token = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        notes.append(SecretNote("~/.npmrc on the runner:\n"
                                f"//npm.acme.internal/:_authToken={token}\nalways-auth=true",
                                token, "npmrc_auth_token", "npmrc"))
        notes.append(SecretNote(f"Mirror sync uses https://ci-bot:{password}@git.acme.internal/"
                                "infra/mirror.git and needs no prompt.", password,
                                "basic_auth_url", "url"))
        account_key = rand(rng, B64, 86) + "=="
        notes.append(SecretNote(
            "Blob connection string: DefaultEndpointsProtocol=https;AccountName=rptarchive;"
            f"AccountKey={account_key};EndpointSuffix=core.windows.net", account_key,
            "azure_storage_key", "connection_string"))
        sig = rand(rng, B64, 43) + "="
        sas = sig.replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")
        notes.append(SecretNote(
            f"Upload with https://rptarchive.blob.core.windows.net/exports?sv=2022-11-02&ss=b&srt=co"
            f"&sp=rwl&se=2025-12-31T00:00:00Z&spr=https&sig={sas}", sas, "azure_sas_token", "url"))
        basic = b64_of(f"deploy:{password}".encode())
        notes.append(SecretNote(f"curl -H 'Authorization: Basic {basic}' https://ci.acme.internal"
                                "/api/json", basic, "basic_auth_header", "header"))
    aws_secret = rand(rng, B64, 40)
    notes.append(SecretNote(
        f"Deploy creds: AWS key AKIA{rand(rng, UPPER + '234567', 16)}, secret {aws_secret}, "
        f"token ghp_{rand(rng, ALNUM, 36)}", aws_secret, "aws_secret_key", "several"))
    return notes


def secret_notes(seed: int = SEED) -> list[SecretNote]:
    """Every format in every style it is written in, plus the multi-line shapes."""
    rng = random.Random(seed)
    notes: list[SecretNote] = []
    for fmt in FORMATS:
        for style in fmt.styles:
            value = fmt.make(rng)
            notes.append(SecretNote(_single_line(fmt, value, style, rng), value, fmt.kind, style))
    return notes + _multi_line(rng)
