"""`kg-brain bench secrets` (or `python -m bench.secrets`): the redactor judged on text it was not
built from.

bench/data/secrets.jsonl holds 700 labelled items in the forms secrets take in notes
(shell commands with flags, .env and config files, kube manifests, JSON, logs, connection strings,
chat-style sentences), half of them harmless look-alikes (ids, UUIDs, digests, public keys,
asset names, base64 fixtures, `-p` flags that are ports). Each item comes from a frame written
by hand; values are drawn in the vendors' published shapes. The frames were split once into a
tuning and a check half (seed 28): patterns are developed on the tuning half only, the check
half is the result.

bench/data/secrets-r3/ is the third round, written fresh in new frames (config files, CLI flags,
chat, logs, URLs, CI files) as two files decided before either was written: check.jsonl first,
then tune.jsonl; each 80 secrets and 80 look-alikes (public keys, hashes, ids, placeholders,
documented example keys). Round 3's rules were chosen on tune.jsonl alone.

bench/data/secrets-r4/ is the fourth round: frames written fresh before any of its tuning, two
or more a kind (password flags and positional passwords of many command-line tools, tokens in
URL paths and queries, chat login pairs, config files of many formats, CI files; public keys,
hashes, ids, placeholders, documented example keys, base64 fixtures), each kind's frames split
into the halves by random.Random(44), values drawn by random.Random(404); check.jsonl was
committed before tuning began.

bench/data/secrets-r5/ is the fifth round, in formats and surroundings the earlier rounds did not
hold (cloud keys of several vendors, package-registry, CI and AI-provider tokens, webhook URLs,
DSNs, private keys in logs, session cookies, secrets in tracebacks, base64 in config; lockfile
hashes, checksums, paths, ids, fixtures, public keys, placeholders): two frames a kind, split by
random.Random(55), values drawn by random.Random(505); check.jsonl was committed before tuning.

bench/data/secrets-r6/ is the sixth round, new kinds and surroundings again (docker config.json
auths, kubeconfigs, kubeadm and k3s join tokens, .netrc, .npmrc, .pypirc, gradle.properties,
terraform state and outputs, Ansible inventories, SSH keys beside an ssh config, HAR and Postman
files, git remotes with tokens, OIDC and SAML client secrets, signed URLs, otpauth seeds,
database URIs in stack traces, CI logs, Vault init output; terraform plans, vault ciphertext,
unsigned URLs, RFC test vectors, SRI hashes, CSP nonces, git object ids, checksum files, masked
values): two frames a kind, split by random.Random(66), values drawn by random.Random(606);
check.jsonl was committed before tuning.

bench/data/secrets-r7/ is the seventh round, kinds and surroundings no earlier round held: web
frameworks' application secrets in their own config forms (Laravel's `base64:` keys, Symfony,
Django, Rails, Phoenix, Spring, ASP.NET, Next.js and NextAuth, Flask's bytes), Kubernetes Secrets
as JSON, literals and manifests, Helm values, CI variable files, mobile app configs
(google-services, Info.plist, AndroidManifest, keystore passwords in Gradle), SQL dumps and seeds,
`IDENTIFIED BY`, Redis ACLs, message-queue URLs, NATS seeds, LDAP binds, SNMP communities, Wi-Fi
PSKs in device configs and code, license keys, webhook signing secrets, recovery phrases, JSON
escaped once and twice, URL-encoded values, a value wrapped over log lines; and look-alikes an
agent writes every day (hasher names, bcrypt costs, images and gzip in base64, hex colours, IPv6
and MAC addresses, device serials, certificates, fingerprints, feature flags, placeholders,
references, ciphertext, password hashes in dumps): two frames a kind, split by random.Random(77),
values drawn by random.Random(707); check.jsonl was committed before tuning.

`--split tune` scores the tuning halves only (where rules are chosen); `--split all`, the
default, scores every half and records the check halves' scoring in the ledger.

A secret counts as hidden when its value no longer appears in the redacted text; a harmless
item counts as changed when the text comes back different in any way.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from bench.common import emit_result, record_check_run
from kg_brain.base.settings import Settings, load_settings
from kg_brain.text.redact import redact

DATA = Path(__file__).parent / "data" / "secrets.jsonl"
ROUNDS = {"round_3": Path(__file__).parent / "data" / "secrets-r3",
          "round_4": Path(__file__).parent / "data" / "secrets-r4",
          "round_5": Path(__file__).parent / "data" / "secrets-r5",
          "round_6": Path(__file__).parent / "data" / "secrets-r6",
          "round_7": Path(__file__).parent / "data" / "secrets-r7"}
HALVES = ("tune", "check")


def load(path: Path = DATA) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def judge(items: list[dict[str, Any]]) -> dict[str, Any]:
    """Secrets hidden and harmless items changed (counts and shares), and the failures."""
    secrets = [i for i in items if i["secret"] is not None]
    harmless = [i for i in items if i["secret"] is None]
    missed = [i for i in secrets if i["secret"] in redact(i["text"])[0]]
    changed = [(i, redact(i["text"])[0]) for i in harmless]
    changed = [(i, out) for i, out in changed if out != i["text"]]
    return {
        "secrets": len(secrets), "secrets_hidden": len(secrets) - len(missed),
        "hidden": round(1 - len(missed) / len(secrets), 4),
        "harmless": len(harmless), "harmless_changed": len(changed),
        "changed": round(len(changed) / len(harmless), 4),
        "missed": [{"kind": i["kind"], "text": i["text"]} for i in missed],
        "mangled": [{"kind": i["kind"], "text": i["text"], "redacted": out} for i, out in changed],
    }


def run(split: str = "all") -> dict[str, Any]:
    """Every half of every round (`split` "all"), or the tuning halves only ("tune")."""
    halves = HALVES if split == "all" else ("tune",)
    items = [i for i in load() if i["half"] in halves]
    fresh = {(name, half): load(folder / f"{half}.jsonl")
             for name, folder in ROUNDS.items() for half in halves}
    began = time.perf_counter()
    result: dict[str, Any] = {half: judge([i for i in items if i["half"] == half])
                              for half in halves}
    for name, folder in ROUNDS.items():
        result[name] = {"data": f"{folder.name}/",
                        **{half: judge(fresh[name, half]) for half in halves}}
    judged = len(items) + sum(map(len, fresh.values()))
    per_item_ms = 1000 * (time.perf_counter() - began) / (2 * judged)  # redact runs twice
    return {"benchmark": "secrets", "data": str(DATA.name), "split": split, "items": len(items),
            "redact_ms_per_item": round(per_item_ms, 3), **result}


def cmd_secrets(args: argparse.Namespace, settings: Settings) -> int:
    result = run(args.split)
    if args.split == "all":  # round 2's check half and each later round's check.jsonl
        record_check_run("secrets", "all", [DATA.name, *(f"{folder.name}/check.jsonl"
                                                         for folder in ROUNDS.values())],
                         args.out)
    emit_result(result, args.out, settings)
    return 0


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--split", choices=("tune", "all"), default="all",
                        help="tune: the tuning halves only; all: every half (the check halves "
                             "are recorded in the ledger)")
    parser.add_argument("--out", type=Path, default=Path("docs/bench/secrets.json"))


def add_parser(kinds: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = kinds.add_parser("secrets", help="redaction on labelled corpora: tune and check halves")
    add_options(p)
    p.set_defaults(handler=cmd_secrets)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_options(parser)
    return cmd_secrets(parser.parse_args(argv), load_settings())


if __name__ == "__main__":
    raise SystemExit(main())
