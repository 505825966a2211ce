"""Secrets vanish on write; ordinary technical notes come back byte-identical."""

from __future__ import annotations

import random
import re
import time
from collections import Counter

import pytest

from kg_brain.text.redact import redact
from kg_brain.text.redact.entropy import entropy
from tests.support.lookalike_corpus import ordinary_notes
from tests.support.secret_corpus import (
    ALNUM,
    B64,
    SEED,
    SINGLE_LINE,
    SecretNote,
    b64_of,
    rand,
    secret_notes,
)

MARKER = re.compile(r"\[REDACTED:\w+\]")
CORPUS = secret_notes()
LOOKALIKES = ordinary_notes()

PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgwMbRvI0MBZhpF\n"
    "Yp0VJ2d1Sdp3ZKp7cXQk9S3jWnIbWqzjX1FjW0y9Lr1D0rOqgXlFvJhFg8j5BzXx\n"
    "-----END RSA PRIVATE KEY-----"
)
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ."
    "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)

# (text containing the secret, the secret itself, the kind reported)
SECRETS: list[tuple[str, str, str]] = [
    ("aws key AKIAQ4TZ2MNB7XRW3KLP in the CI env", "AKIAQ4TZ2MNB7XRW3KLP", "aws_access_key"),
    ("session ASIAY34FZKBOKMUTVV7A expired", "ASIAY34FZKBOKMUTVV7A", "aws_access_key"),
    ("aws_secret_access_key = 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",
     "u8Ht2LxQ9mVw/R3pKz7NcYe+4GbT1fSdJ6aWq0Ei", "aws_secret_key"),
    ("git clone with ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R9s0T",
     "ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R9s0T", "github_token"),
    ("oauth gho_16C7e42F292c6912E7710c838347Ae178B4a used",
     "gho_16C7e42F292c6912E7710c838347Ae178B4a", "github_token"),
    ("GH_PAT github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGH",
     "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGH", "github_token"),
    ("slack bot xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
     "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "slack_token"),
    ("OPENAI_API_KEY is sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z",
     "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z", "openai_key"),
    ("legacy key sk-4f8Gh2Jk6Lm9Np3Qr7St1Vw5Xy8Za2Bc", "sk-4f8Gh2Jk6Lm9Np3Qr7St1Vw5Xy8Za2Bc",
     "openai_key"),
    ("claude sk-ant-api03-Xy7_Zk2-Pq9Rs4Tu8Vw1Xa5Bc6De3Fg0Hi",
     "sk-ant-api03-Xy7_Zk2-Pq9Rs4Tu8Vw1Xa5Bc6De3Fg0Hi", "anthropic_key"),
    ("HF token hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh", "hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh",
     "huggingface_token"),
    ("maps AIzaSyA-1234567890abcdefghijklmnopqrstu ok", "AIzaSyA-1234567890abcdefghijklmnopqrstu",
     "google_api_key"),
    (f"the session cookie was {JWT}", JWT, "jwt"),
    (f"deploy key:\n{PEM}\nend", "MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn", "private_key"),
    ("DATABASE_URL=postgres://app:s3cr3tP4ss@db.internal:5432/app", "s3cr3tP4ss", "password"),
    ("mongodb+srv://admin:Pa55w0rd!@cluster0.mongodb.net/test", "Pa55w0rd!", "password"),
    ("run psql --password=hunter2 against staging", "hunter2", "password"),
    ("in .env: DB_PASSWORD=supersecretvalue", "supersecretvalue", "password"),
    ('config.json has "api_key": "abcd1234efgh5678"', "abcd1234efgh5678", "api_key"),
    ("settings.py: SECRET_KEY = 'django-insecure-9x!kz#2pq'", "django-insecure-9x!kz#2pq",
     "secret"),
    ("client_secret='Zx9kLmQ2pQrTt7'", "Zx9kLmQ2pQrTt7", "secret"),
    ("yaml: token: ya29.a0AfH6SMBxQ7kq2", "ya29.a0AfH6SMBxQ7kq2", "token"),
    ("curl -H 'Authorization: Bearer abc123def456ghi789' https://api.example.com",
     "abc123def456ghi789", "bearer_token"),
    ("payments use sk_live_4eC39HqLyjWDarjtT1zdp7dc", "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
     "stripe_key"),
]

ORDINARY: list[str] = [
    "password_hash = bcrypt.hashpw(password.encode(), bcrypt.gensalt())",
    "token = get_token()",
    "Use scikit-learn (sometimes written sk-learn) for the baseline classifier.",
    "Fixed in commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f on main.",
    "Each test uses project test-5f3c2a1e-8b4d-4c1a-9e2f-7a6b5c4d3e2f to stay isolated.",
    "Download from https://example.com/files/aGVsbG8gd29ybGQxMjM0NTY3ODkw/download?x=1",
    'api_key = os.environ["OPENAI_API_KEY"]',
    "neo4j_password: str | None = Field(None, repr=False)",
    "password: ${NEO4J_PASSWORD}",
    "Set `OPENAI_API_KEY=<your key>` in .env before starting the server.",
    "response = client.chat(messages, max_tokens=512, temperature=0.1)",
    'headers = {"Authorization": f"Bearer {token}"}',
    "hf_hub_download(repo_id=repo, filename='model.safetensors')",
    "docker run -e POSTGRES_PASSWORD=$POSTGRES_PASSWORD postgres:16",
    "if token == expected_token:\n    return True",
    "password = getpass.getpass()",
    "connect(user=user, password=db_password, host='localhost')",
    "api_key: SecretStr | None = None",
    "PASSWORD_MIN_LENGTH = 12",
    "SMTP_PASSWORD_FILE=/etc/mailer/smtp.pass",
    "Connect with bolt://localhost:7687 and user neo4j; browser at http://localhost:7474/browser",
    "git remote add origin git@github.com:org/repo.git",
    "The auth token expires after 3600 seconds; call refresh_token() before that.",
    "curl -H \"Authorization: Bearer $GITHUB_TOKEN\" https://api.github.com/user",
    "The task-1234567890abcdefghij queue and risk-score-2024-quarterly report are unrelated.",
    "A JWT starts with eyJ because base64 of '{\"' is eyJ; decode with jwt.decode(token, key)",
    "password: changeme  # local docker-compose only",
    "token_count = len(tokens)",
    "API_KEY = config_value  # a constant bound to a variable",
    "compose: POSTGRES_PASSWORD: example",
    "The key AKIA prefix means a long-term AWS access key.",
    "AWS's docs use AKIAIOSFODNN7EXAMPLE and wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY.",
    "Bearer authentication sends the token in the Authorization header.",
]


@pytest.mark.parametrize(("text", "secret", "kind"), SECRETS, ids=[s[2] + str(i) for i, s in
                                                                    enumerate(SECRETS)])
def test_secret_is_replaced_and_reported(text: str, secret: str, kind: str) -> None:
    cleaned, kinds = redact(text)
    assert secret not in cleaned
    assert f"[REDACTED:{kind}]" in cleaned
    assert kind in kinds


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_note_is_untouched(text: str) -> None:
    assert redact(text) == (text, [])


def test_connection_string_keeps_user_and_host() -> None:
    cleaned, _ = redact("postgres://app:s3cr3tP4ss@db.internal:5432/app")
    assert cleaned == "postgres://app:[REDACTED:password]@db.internal:5432/app"


def test_assignment_keeps_key_and_quotes() -> None:
    cleaned, kinds = redact('client = Client(api_key="abcd1234efgh5678", timeout=5)')
    assert cleaned == 'client = Client(api_key="[REDACTED:api_key]", timeout=5)'
    assert kinds == ["api_key"]


def test_redaction_is_idempotent() -> None:
    once, _ = redact(" ".join(text for text, _, _ in SECRETS))
    twice, kinds = redact(once)
    assert twice == once
    assert kinds == []


def test_several_secrets_in_one_note_are_all_reported() -> None:
    text = f"token ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R9s0T and {PEM} and password=hunter22"
    cleaned, kinds = redact(text)
    assert set(kinds) == {"github_token", "private_key", "password"}
    assert "hunter22" not in cleaned and "BEGIN RSA" not in cleaned


@pytest.mark.parametrize("blob", ["A" * 32_000, "a." * 16_000, "sk-" * 10_000, "token=" * 5_000,
                                  "token " * 5_000, "secret is " * 3_000, "token - " * 4_000,
                                  "curl " * 6_000, "Ab1+" * 8_000, "a" * 40 + "=" * 30_000])
def test_long_unbroken_input_does_not_backtrack(blob: str) -> None:
    started = time.monotonic()
    redact(blob)
    assert time.monotonic() - started < 2.0  # a quadratic pattern takes minutes here


def _kept_around(original: str, cleaned: str) -> bool:
    """The cleaned text is the original with some spans replaced by markers, nothing else."""
    parts = MARKER.split(cleaned)
    return re.fullmatch("(.+?)".join(map(re.escape, parts)), original, re.S) is not None


def test_corpus_covers_enough_secrets_kinds_styles_and_lookalikes() -> None:
    assert len(CORPUS) >= 100 and len({note.kind for note in CORPUS}) >= 20
    assert {"labelled", "unlabelled", "bare", "yaml", "env", "json", "shell"} <= {
        note.style for note in CORPUS}
    assert len(LOOKALIKES) >= 300


def test_no_generated_secret_is_stored() -> None:
    stored = [note for note in CORPUS if note.secret in redact(note.text)[0]]
    by_kind = Counter(note.kind for note in stored)
    print(f"\nsecrets stored: {len(stored)} of {len(CORPUS)} "
          f"({len({n.kind for n in CORPUS})} kinds) {dict(by_kind)}")
    assert stored == []


@pytest.mark.parametrize("note", CORPUS, ids=[f"{n.kind}-{n.style}-{i}" for i, n in
                                               enumerate(CORPUS)])
def test_redaction_names_the_kind_and_keeps_the_rest_of_the_note(note: SecretNote) -> None:
    cleaned, kinds = redact(note.text)
    assert kinds and all(f"[REDACTED:{kind}]" in cleaned for kind in kinds)
    assert _kept_around(note.text, cleaned)
    if note.style in SINGLE_LINE:  # exactly the secret went, every other character stayed
        expected = re.escape(note.text).replace(re.escape(note.secret), MARKER.pattern)
        assert re.fullmatch(expected, cleaned), cleaned


def test_false_positive_rate_on_lookalikes_is_at_most_one_percent() -> None:
    changed = [note for note in LOOKALIKES if redact(note) != (note, [])]
    rate = len(changed) / len(LOOKALIKES)
    print(f"\nfalse positives: {len(changed)} of {len(LOOKALIKES)} ordinary notes ({rate:.2%})")
    assert rate <= 0.01, [redact(note)[0] for note in changed]


def test_redacting_the_corpus_twice_changes_nothing_more() -> None:
    for note in CORPUS:
        once, _ = redact(note.text)
        assert redact(once) == (once, [])


def test_the_reported_deploy_note_loses_all_three_credentials() -> None:
    note = ("Deploy creds: AWS key AKIAQ4TZ2MNB7XRW3KLP, secret "
            "u8Ht2LxQ9mVw/R3pKz7NcYe+4GbT1fSdJ6aWq0Ei, token ghp_"
            "7kQ2mZ9xR4tL8vN3pW6yB1cD5fG0hJ2sK4aE")
    cleaned, kinds = redact(note)
    assert cleaned == ("Deploy creds: AWS key [REDACTED:aws_access_key], secret "
                       "[REDACTED:aws_secret_key], token [REDACTED:github_token]")
    assert kinds == ["aws_access_key", "github_token", "aws_secret_key"]


@pytest.mark.parametrize(("text", "kind"), [
    ("Twilio auth token for the SMS sender: 5de0dc3c1047fca4944447606febfd0d", "token"),
    ("Datadog: 0bd8b89e716953dba71478fd865212a2", "api_key"),
    ("Heroku API key is 16fb7378-0962-405d-a35c-500cd7409017", "api_key"),
    ("the db password is Tr0ub4dor&3x", "password"),
])
def test_hex_uuid_and_passwords_are_hidden_when_a_word_names_them(text: str, kind: str) -> None:
    cleaned, kinds = redact(text)
    assert kinds == [kind] and cleaned.endswith(f"[REDACTED:{kind}]")


@pytest.mark.parametrize("text", [
    "Fixed in 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f; the token refresh race is gone.",
    "The secret's SHA-256: 0bd8b89e716953dba71478fd865212a20bd8b89e716953dba71478fd865212a2",
    "password_hash: pbkdf2_sha256$600000$Xb3kQ9m2Lp7R$abcDEF123ghiJKL456mnoPQR789stuVWX012yz=",
    "secret_name: prod-db-credentials-v2",
    "Creds rotated by Terraform module secrets-rotation-v1.4.2",
    "token expires 2024-05-01T12:00:00Z",
    "Rotated the admin password\nXk9mP2vL7q3R-build passed on the runner",
])
def test_words_about_secrets_without_a_secret_leave_the_note_alone(text: str) -> None:
    assert redact(text) == (text, [])


@pytest.mark.parametrize("shape", [
    "{v}", "sha256:{v}", "sha512-{v}", "h1:{v}", "https://docs.example.com/d/{v}/edit",
    "request id {v}", "ssh-ed25519 {v}", "$2b$12${v}",
])
def test_random_base64_alone_is_hidden_unless_its_place_explains_it(shape: str) -> None:
    value = "q3Rz8Xk2Lm9Pq1Rt5Vw7Yz0Ab4Cd6Ef8Gh2Jk4Mn"
    cleaned, kinds = redact(f"Use {shape.format(v=value)} for it.")
    assert (kinds == ["high_entropy_secret"]) is (shape == "{v}")
    assert (value in cleaned) is (shape != "{v}")


def test_base64_of_text_or_a_file_is_sample_data() -> None:
    for data in (b"The quick brown fox jumps over the lazy dog.", b"\x89PNG\r\n\x1a\n" + bytes(30)):
        text = f"decoded it: {b64_of(data)}"
        assert redact(text) == (text, [])


def test_only_secret_manifests_lose_their_data() -> None:
    text = ("apiVersion: v1\nkind: ConfigMap\ndata:\n  LOG_LEVEL: info\n---\napiVersion: v1\n"
            "kind: Secret\ndata:\n  password: aHVudGVyMg==\n  user: \"{{ .Values.user }}\"\n"
            "stringData:\n  tls.key: |\n    line one\n    line two\n  mode: \"strict\"\n")
    cleaned, kinds = redact(text)
    assert kinds == ["kubernetes_secret"]
    assert cleaned == text.replace("aHVudGVyMg==", "[REDACTED:kubernetes_secret]").replace(
        "    line one\n    line two\n", "    [REDACTED:kubernetes_secret]\n").replace(
        '"strict"', '"[REDACTED:kubernetes_secret]"')
    assert redact(cleaned) == (cleaned, [])


@pytest.mark.parametrize(("alphabet", "template"), [
    (ALNUM, "Use {} for the nightly sync."), (B64, "Use {} for the nightly sync."),
    (ALNUM, "partner API key: {} (rotated)"), (ALNUM + "!#%^*", "the db password is {}"),
])
def test_unlabelled_random_keys_are_found_at_least_98_percent_of_the_time(
        alphabet: str, template: str) -> None:
    rng = random.Random(SEED)
    values = [rand(rng, alphabet, rng.randint(12 if "password" in template else 32, 48))
              for _ in range(500)]
    missed = [v for v in values if v in redact(template.format(v))[0]]
    print(f"\n{template!r}: {len(missed)} of {len(values)} random values kept")
    assert len(missed) <= 10, missed


def test_entropy_is_bits_per_character() -> None:
    assert entropy("aaaa") == 0.0
    assert entropy("abcd") == 2.0
    assert entropy("0123456789abcdef") == 4.0
