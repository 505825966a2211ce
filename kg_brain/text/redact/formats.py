"""Credentials with a recognisable shape: a vendor prefix (AKIA..., ghp_..., SG....), a fixed
layout (PEM blocks, JWTs, Telegram bot tokens) or a fixed place (a URL's password, an
`AccountKey=` field, an `.npmrc` `_authToken`). These match anywhere, with no word nearby.

Each format names the lower-case literals one of its matches must contain, so a note is only
searched for the formats it can hold (as gitleaks does with rule keywords)."""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass

from kg_brain.text.redact.marks import is_placeholder, mark, splice

_END = r"(?![A-Za-z0-9_\-])"  # a token ends where token characters stop


@dataclass(frozen=True)
class Format:
    kind: str
    pattern: re.Pattern[str]
    keywords: tuple[str, ...] = ()  # none of these in the note: the pattern cannot match

    def hide(self, text: str, found: list[str]) -> str:
        """The text with every match replaced (only its "secret" group when it has one)."""

        def replace(match: re.Match[str]) -> str:
            if "secret" not in match.re.groupindex or match.group("secret") is None:
                if is_placeholder(match.group(0)):  # xoxb-your-bot-token, AWS's documented key
                    return match.group(0)
                found.append(self.kind)
                return mark(self.kind)
            if is_placeholder(match.group("secret")):
                return match.group(0)
            found.append(self.kind)
            return splice(match, "secret", self.kind)

        return self.pattern.sub(replace, text)


def _f(kind: str, pattern: str, *keywords: str, flags: int = 0) -> Format:
    return Format(kind, re.compile(pattern, flags), keywords)


FORMATS: tuple[Format, ...] = (
    _f("private_key", r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----.*?-----END "
                      r"(?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----", "private key", flags=re.S),
    # a key cut short (pasted without its END line, or its JSON string truncated)
    _f("private_key", r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
                      r"(?:\\n|\r?\n|[A-Za-z0-9+/=])+", "private key"),
    _f("password", r"\b[a-zA-Z][a-zA-Z0-9+.\-]{0,30}://[^\s:/@'\"]*:(?P<secret>[^\s@/'\"]+)"
                   r"@[\w.\-\[\]]+", "://"),
    # Go's MySQL driver: user:password@tcp(host:port)/db
    _f("password", r"\b[\w.\-]+:(?P<secret>[^\s:@/'\"]+)@(?:tcp|unix)\(", "@tcp(", "@unix("),
    _f("jwt", r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}", "eyj"),
    _f("aws_access_key", r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b",
       "akia", "asia", "agpa", "aida", "aroa", "anpa", "anva", "aipa"),
    _f("aws_secret_key", r"(?i)\baws[_\-]?secret(?:[_\-]?access)?[_\-]?key[\"']?\s*[:=]\s*[\"']?"
                         r"(?P<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])", "secret"),
    _f("github_token", r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b",
       "gh", "github_pat_"),
    _f("gitlab_token", r"\b(?:glpat|gldt|glrt|glptt|glft|glsoat|gloas|glimt|glagent|glffct)-"
                       r"[A-Za-z0-9_\-]{20,}|\bglcbt-[A-Za-z0-9]{1,5}_[A-Za-z0-9_\-]{20,}", "gl"),
    _f("slack_token", r"\bxox[abeoprs]-[A-Za-z0-9\-]{10,}|\bxapp-\d-[A-Za-z0-9\-]{10,}", "xox",
       "xapp-"),
    _f("slack_webhook", r"(?:https?://)?hooks\.slack\.com/(?:services|workflows|triggers)/"
                        r"[A-Za-z0-9_+/\-]{20,}", "hooks.slack.com"),
    _f("anthropic_key", r"\bsk-ant-[A-Za-z0-9_\-]{20,}", "sk-ant-"),
    _f("openai_key", r"\bsk-(?:proj-|svcacct-|admin-)?(?=[A-Za-z0-9_\-]{0,200}\d)"
                     r"(?=[A-Za-z0-9_\-]{0,200}[A-Za-z])[A-Za-z0-9_\-]{20,}", "sk-"),
    # secret and restricted keys; a publishable key (pk_) is public by design
    _f("stripe_key", r"\b[rs]k_(?:live|test|prod)_[A-Za-z0-9]{16,}", "k_live_", "k_test_",
       "k_prod_"),
    _f("huggingface_token", r"\b(?:hf_|api_org_)(?=[A-Za-z0-9]{0,40}[A-Z])[A-Za-z0-9]{30,40}\b",
       "hf_", "api_org_"),
    _f("google_api_key", r"\bAIza[0-9A-Za-z_\-]{35}" + _END, "aiza"),
    _f("npm_token", r"\bnpm_[A-Za-z0-9]{36}\b", "npm_"),
    _f("npm_token", r"(?://[^\s:]+/)?:_(?:authToken|auth|password)\s*=\s*"
                    r"(?P<secret>[^\s\"'$][^\s\"']*)", ":_auth", ":_password"),
    _f("bearer_token", r"(?i)\bauthorization[\"']?\s*[:=]\s*[\"']?bearer\s+"
                       r"(?P<secret>[A-Za-z0-9._~+/\-]{8,}=*)", "bearer"),
    _f("bearer_token", r"\bBearer\s+(?P<secret>(?=[A-Za-z0-9._~+/\-]{0,200}\d)"
                       r"[A-Za-z0-9._~+/\-]{20,}=*)", "bearer"),
    # any other scheme names a credential too: Token, SSWS, Splunk, GenieKey, Bot
    _f("auth_header", r"(?i)\bauthorization[\"']?\s*[:=]\s*[\"']?(?!bearer\b|basic\b)"
                      r"[A-Za-z][\w\-]*[ \t]+(?P<secret>(?=[A-Za-z0-9._~+/\-]{0,200}\d)"
                      r"[A-Za-z0-9._~+/\-]{16,}=*)" + _END, "authorization"),
    # also a header set by a call: req.Header.Set("Authorization", "Basic ...")
    _f("basic_auth", r"(?i)\bauthorization[\"']?\s*[:=,]\s*[\"']?basic\s+"
                     r"(?P<secret>[A-Za-z0-9+/]{8,}={0,2})", "basic"),
    _f("docker_auth", r"\"auth\"\s*:\s*\"(?P<secret>[A-Za-z0-9+/]{12,}={0,2})\"", '"auth"'),
    _f("password", r"\bcurl\b[^\n]{0,300}?\s(?:-u|--user)[\s=]+[\"']?[^\s:\"'$]+:"
                   r"(?P<secret>[^\s\"'@]+)", "curl"),
    _f("password", r"(?<!\S)--password\s+[\"']?(?P<secret>[^\s\"'$<{\-][^\s\"']{3,})",
       "--password"),
    _f("azure_storage_key", r"(?i)\b(?:AccountKey|SharedAccessKey)\s*=\s*"
                            r"(?P<secret>[A-Za-z0-9+/]{40,}={0,2})", "accountkey",
       "sharedaccesskey"),
    _f("azure_client_secret", r"(?<![A-Za-z0-9_~.\-])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.\-]{31,34}"
                              r"(?![A-Za-z0-9_~.\-])", "q~"),
    _f("azure_sas_token", r"[?&]sig=(?P<secret>[A-Za-z0-9%+/=]{20,})", "sig="),
    # the signature of a signed URL (S3 and GCS presigned, CloudFront): the path and the other
    # parameters name the object, the signature grants it
    _f("url_signature", r"(?i)[?&](?:x-amz-signature|x-goog-signature|signature|"
                        r"x-amz-security-token)=(?P<secret>[A-Za-z0-9%+/=_~\-]{20,})",
       "signature=", "security-token="),
    _f("twilio_key", r"\bSK[0-9a-fA-F]{32}\b", "sk"),
    _f("sendgrid_key", r"\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}" + _END, "sg."),
    _f("mailgun_key", r"\bkey-[0-9a-f]{32}\b|\b[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8}\b"),
    _f("digitalocean_token", r"\bdo[opr]_v1_[a-f0-9]{64}\b", "_v1_"),
    _f("discord_token", r"\b[MNO](?=[A-Za-z0-9_\-]{0,25}\d)[A-Za-z0-9_\-]{22,25}\."
                        r"[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,38}" + _END),
    _f("discord_webhook", r"(?:https?://)?(?:\w+\.)?discord(?:app)?\.com/api/webhooks/\d+/"
                          r"[A-Za-z0-9_\-]{60,}", "discord"),
    # alone, or in the Bot API's URL path: https://api.telegram.org/bot<token>/sendMessage
    _f("telegram_bot_token", r"(?:\b|(?<=/bot))\d{8,10}:AA[A-Za-z0-9_\-]{33}" + _END, ":aa"),
    _f("shopify_token", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b", "shp"),
    _f("square_token", r"\b(?:EAAA|sq0atp-|sq0csp-)[A-Za-z0-9_\-]{22,60}" + _END, "eaaa", "sq0"),
    _f("pypi_token", r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,}", "pypi-"),
    _f("dockerhub_token", r"\bdckr_pat_[A-Za-z0-9_\-]{27,}", "dckr_"),
    _f("heroku_key", r"\bHRKU-[A-Za-z0-9_\-]{40,}", "hrku-"),
    _f("vault_token", r"\bhv[sbr]\.[A-Za-z0-9_\-]{24,}", "hvs.", "hvb.", "hvr."),
    _f("databricks_token", r"\bdapi[a-f0-9]{32}(?:-\d)?\b", "dapi"),
    _f("service_token", r"\b(?:lin_api_[A-Za-z0-9]{40}|PMAK-[a-f0-9]{24}-[a-f0-9]{34}|"
                        r"sntry[su]_[A-Za-z0-9+/=_]{40,}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|"
                        r"glc_[A-Za-z0-9+/]{32,}={0,2}|dp\.pt\.[A-Za-z0-9]{43}|pul-[a-f0-9]{40}|"
                        r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9=._\-]{32,64}|NRAK-[A-Z0-9]{27}|"
                        r"dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}|ATATT3[A-Za-z0-9_\-=]{100,}|"
                        r"LTAI[A-Za-z0-9]{20})" + _END,
       "lin_api_", "pmak-", "sntry", "glsa_", "glc_", "dp.pt.", "pul-", "pscale_", "nrak-",
       "dt0c01.", "atatt3", "ltai"),
    # SonarQube's user, project and global analysis tokens; NuGet's API keys
    _f("sonar_token", r"\bsq[upa]_[0-9a-f]{40}\b", "squ_", "sqp_", "sqa_"),
    _f("nuget_key", r"\boy2[a-z0-9]{43}\b", "oy2"),
    _f("stripe_webhook_secret", r"\bwhsec_[A-Za-z0-9+/]{24,}={0,2}", "whsec_"),
    _f("tailscale_key", r"\btskey-(?:auth|client|api|scim|webhook)-[A-Za-z0-9]{8,}-[A-Za-z0-9]{16,}"
                        r"|\btskey-[A-Za-z0-9]{8,}-[A-Za-z0-9]{16,}", "tskey-"),
    _f("mailchimp_key", r"\b[0-9a-f]{32}-us\d{1,2}\b", "-us"),
    _f("tencent_secret_id", r"\bAKID[A-Za-z0-9]{32}\b", "akid"),
    _f("twitch_token", r"\boauth:[a-z0-9]{30}\b", "oauth:"),
    _f("launchdarkly_key", r"\b(?:sdk|api|mob)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-"
                           r"[0-9a-f]{12}\b", "sdk-", "api-", "mob-"),
    # Twilio's Client(account_sid, auth_token): the second is the secret
    _f("twilio_key", r"\bAC[0-9a-f]{32}[\"']?\s*,\s*[\"']?(?P<secret>[0-9a-f]{32})\b", "ac"),
    # .NET appSettings: <add key="SmtpPassword" value="..." />
    _f("password", r"(?i)<add\s+key=\"[^\"]*(?:passw(?:or)?d|secret|token|apikey)[^\"]*\"\s+"
                   r"value=\"(?P<secret>[^\"]{4,})\"", "<add"),
    _f("age_secret_key", r"\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b", "age-secret-key-"),
    # Google's OAuth client secrets
    _f("google_client_secret", r"\bGOCSPX-[A-Za-z0-9_\-]{28}" + _END, "gocspx-"),
    # an NKEY seed (NATS): S, the key's type, then base32; the public keys start N, A, U, O, C
    _f("nkey_seed", r"\bS[UNAOCX][A-Z2-7]{56}\b", "s"),
    # a wallet's recovery phrase after the word naming it: BIP39's 12, 15, 18, 21 or 24 words
    # of 3 to 8 lower-case letters, the whole value (a sentence goes on)
    _f("recovery_phrase", r"(?i)\b(?:mnemonic|(?:seed|recovery|backup|secret|wallet)[ _\-]?"
                          r"(?:phrase|words))\b[\"'`]?[ \t]*(?:[:=]|is|was)?[ \t]*[\"'`]?"
                          r"(?P<secret>(?-i:[a-z]{3,8}(?:(?:[ \t]+[a-z]{3,8}){23}|"
                          r"(?:[ \t]+[a-z]{3,8}){20}|(?:[ \t]+[a-z]{3,8}){17}|"
                          r"(?:[ \t]+[a-z]{3,8}){14}|(?:[ \t]+[a-z]{3,8}){11})))"
                          r"(?![ \t]*[\w\-])", "mnemonic", "phrase", "words"),
    # a k3s node or agent token: K10<CA hash>::<user>:<password>
    _f("k3s_token", r"\bK10[0-9a-f]{64}::[\w\-]+:(?P<secret>[0-9A-Za-z]{16,})\b", "k10"),
    # a one-time-password seed as authenticator apps show it, base32 in groups of four
    # ("setup key: abcd 2efg ..."), named by the word before it
    _f("otp_seed", r"(?i)\b(?:key|secret|seed)\b[^\n\w]{0,12}(?:is[ \t]*:?[ \t]*)?"
                   r"(?P<secret>(?=[a-z2-7 ]{0,80}[2-7])(?=[2-7 ]{0,80}[a-z])"
                   r"[a-z2-7]{4}(?:[ \t][a-z2-7]{4}){3,7})(?![\w])",
       "key", "secret", "seed"),
    # a token in a URL's path, named by the segment before it (Mattermost /hooks/<id>, IFTTT
    # /with/key/<key>, Zapier /hooks/catch/<n>/<id>/): letters with digits, 16 or more
    _f("url_token", r"(?i)://[^\s/]+/(?:[^\s/?#]+/)*?(?:[\w\-]*hooks?|key|token|secret)/"
                    r"(?:[a-z]+/|\d+/){0,2}(?P<secret>(?=[A-Za-z_\-]{0,200}\d)"
                    r"(?=[\d_\-]{0,200}[A-Za-z])[A-Za-z0-9_\-]{16,})(?=[/?#\s\"'`]|$)",
       "hook", "/key/", "/token/", "/secret/"),
    # a key in a URL's query, under a name services give API keys (OpenWeather's appid=,
    # Pushover's token=): letters with digits, 16 or more
    _f("url_token", r"(?i)[?&](?:appid|app_?key|api_?key|apikey|access_?token|auth_?token|token|"
                    r"key|client_secret|secret)=(?P<secret>(?=[A-Za-z_\-]{0,200}\d)"
                    r"(?=[\d_\-]{0,200}[A-Za-z])[A-Za-z0-9_\-.~]{16,})(?=[&#\s\"'`]|$)",
       "appid=", "key=", "token=", "secret="),
)


_KEYWORDS = tuple(sorted({k for fmt in FORMATS for k in fmt.keywords}))
_USERS = {k: frozenset(i for i, fmt in enumerate(FORMATS) if k in fmt.keywords) for k in _KEYWORDS}
_ALWAYS = frozenset(i for i, fmt in enumerate(FORMATS) if not fmt.keywords)


_ENCODED_PEM = re.compile(r"LS0tLS1CRUdJTi[A-Za-z0-9+/]{20,}={0,2}")  # base64 of "-----BEGIN"


def hide_formats(text: str, found: list[str]) -> str:
    """Every recognisable credential replaced by its marker; one pass for the keywords, then
    only the formats they allow, in order."""
    lowered = text.lower()
    wanted = _ALWAYS.union(*(_USERS[k] for k in _KEYWORDS if k in lowered))
    for i in sorted(wanted):
        text = FORMATS[i].hide(text, found)
    if "LS0tLS1CRUdJTi" in text:
        text = _ENCODED_PEM.sub(lambda m: _encoded_key(m.group(0), found), text)
    return text


def _encoded_key(value: str, found: list[str]) -> str:
    """A private key block in base64 (a Helm value, a CI variable): its marker; a certificate
    or public key so encoded is public and stays."""
    try:
        head = base64.b64decode(value[:64])
    except (binascii.Error, ValueError):
        return value
    if b"PRIVATE KEY" not in head:
        return value
    found.append("private_key")
    return mark("private_key")
