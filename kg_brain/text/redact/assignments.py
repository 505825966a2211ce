"""Labelled secrets: `password=`/`token:`/`"api_key": "..."`/`config['SECRET_KEY'] = ...`/
`'password' => '...'`/`token := "..."` assignments (also with a literal's prefix, `b'...'`, and with
quotes escaped inside a JSON string, `\\"token\\": \\"...\\"`), XML elements, plist
`<key>`/`<string>` pairs and Terraform variables named for a secret, a name and its value as two
fields (`- name: API_TOKEN` / `value: ...`, `android:name=... android:value=...`), a variables
file's `NAME,value` rows, a fallback literal for a secret read from the environment (`getenv("X") ?:
"..."`), session cookies on a cookie line, and the data of Kubernetes Secret manifests (a
SealedSecret's `encryptedData` is ciphertext: `sealed_values` says where it is, and it is not read).

An assignment only counts when its value is a literal: variable references, calls, placeholders and
type annotations are code, not secrets, and ordinary notes must come back byte-identical.
"""

from __future__ import annotations

import re

from kg_brain.text.redact.marks import (
    in_arn,
    is_placeholder,
    is_public,
    is_resource_path,
    mark,
    splice,
)
from kg_brain.text.redact.referred import password_like

# the key's words without separators, and the kind each one reports; the last one wins
_KEY_WORDS = {
    "password": "password", "passwd": "password", "pwd": "password", "passphrase": "password",
    "pass": "password", "salt": "secret", "secret": "secret", "token": "token",
    "authtok": "password", "auth": "secret", "apikey": "api_key", "accesskey": "api_key",
    "privatekey": "private_key", "credential": "secret",
}
_SECRET_KEY = (
    r"(?<![\w.\-])(?P<key>[\w.\-]{0,40}?(?i:passwd|password|passphrase|pwd|secret(?:[_\-]?key)?|"
    r"token|api[_\-]?key|access[_\-]key|private_key|credentials?|authtok|"
    # PASS, AUTH and SALT as a key's last word: DB_PASS, ansible_become_pass, REDIS_AUTH,
    # SIGNING_SALT
    r"(?<=[_\-.])(?:pass|auth|salt)(?![A-Za-z0-9])|(?<![A-Za-z])SSHPASS))")
_ASSIGNMENT = re.compile(
    _SECRET_KEY +
    # the key's closing quote (escaped inside a JSON string: \", \\\"), and a subscript's
    # bracket: app.config['SECRET_KEY'] = '...'
    r"(?P<kq>(?:\\*[\"'])?\]?)"
    # =, :, and the => of PHP arrays, Ruby hashes and Perl, the := of Go and Pascal
    r"(?P<sep>[ \t]*(?<![=!<>])(?:=>|:=|[:=](?![=>]))[ \t]*)"
    # a literal's prefix (Python's b'' and r'', C#'s @""), its quotes escaped or not
    r"(?:(?:[bBrRuU]{1,2}|@)?\\*(?P<q>[\"'])(?P<qval>(?:[^\"'\n\\]|\\+(?![\\\"']))*)\\*(?P=q)"
    # unquoted, up to a query string's next parameter (&user=...): a & inside is the value's
    r"|(?P<val>[^\s\"'`,;&)\]}]+(?:&(?![\w.\-]*=)[^\s\"'`,;&)\]}]+)*))"
)
# a plist's <key>...</key> and the <string> after it
_PLIST = re.compile(r"<key>(?P<key>[\w.\-]{0,40}?(?i:passw(?:or)?d|passphrase|secret|token|"
                    r"api[_\-]?key|private[_\-]?key)[\w.\-]{0,20})</key>\s*<string>(?P<q>)"
                    r"(?P<qval>[^<>\n]*)</string>")
# a variables file's rows (CSV, tabs): an upper-case name naming a secret, then its value
_ROW = re.compile(r"(?m)^[ \t]*[\"']?(?P<key>[A-Z][A-Z0-9_]{0,40}?(?:PASSWORD|PASSWD|PASS|PWD|"
                  r"SECRET(?:_KEY)?|TOKEN|API_?KEY|ACCESS_KEY|PRIVATE_KEY))[\"']?"
                  r"(?P<sep>[ \t]*[,\t][ \t]*)[\"']?(?P<val>[^\s,\"']+)(?:(?P<q>)(?!))?")
# a fallback literal for a secret read from the environment, the line's last value:
# `System.getenv("X") ?: "..."`, `process.env.X || '...'`, `env('X', '...')`, `getenv("X") or "..."`
_FALLBACK = re.compile(
    r"(?m)" + _SECRET_KEY + r"[\"']?(?P<sep>[ \t]*(?:=>|:|=)"
    r"[ \t]*)(?P<expr>[^\n;]{0,100}?(?i:env|environ)[^\n;]{0,60}?)(?:\?:|\?\?|\|\||\bor\b|,)"
    r"[ \t]*(?P<q>[\"'])(?P<qval>[^\"'\n]*)(?P=q)(?=[ \t]*\)?[ \t]*[;,]?[ \t]*$)")
# a Terraform variable named for a secret, and its default value
_VARIABLE = re.compile(r"\bvariable\s+\"(?P<key>[\w\-]*(?i:passw(?:or)?d|passphrase|secret|token|"
                       r"api[_\-]?key|private[_\-]?key)[\w\-]*)\"\s*\{[^{}]*?\bdefault\s*=\s*"
                       r"(?P<q>\")(?P<qval>[^\"\n]*)\"")
# an XML element named for a secret: Maven's settings.xml <password>, <passphrase>, <apiKey>,
# also with attributes (WS-Security's <wsse:Password Type="...">)
_ELEMENT = re.compile(r"<(?P<key>[\w.:\-]{0,40}?(?i:passw(?:or)?d|passphrase|secret|token|"
                      r"api[_\-]?key|private[_\-]?key)[\w.:\-]{0,20})(?:[ \t][^<>\n]*)?>"
                      r"(?P<q>)(?P<qval>[^<>\n]*)</(?P=key)>")
_REFERENCE_START = ("$", "%", "{", "<", "[", "@", "*", "os.", "env", "process.env", "getenv",
                    "settings.", "config.", "self.", "args.", "request.", "!", "/", "./", "../",
                    "~/")
_NOT_A_CREDENTIAL = re.compile(r"#[0-9a-fA-F]{3,8}|__\w+__")  # a colour, a special token name
# Helm charts' existingSecret, existingSecretPasswordKey: the name of a Secret, not one
_REFERENCE_KEY = re.compile(r"(?i)existing")
_LEET = re.compile(r"[A-Za-z]\d+[A-Za-z]")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_SECRET_MANIFEST = re.compile(r"(?m)^[ \t]*[\"']?kind[\"']?[ \t]*:[ \t]*[\"']?Secret\b")
_DOCUMENTS = re.compile(r"(?m)(^---[ \t]*$)")
_DATA_BLOCK = re.compile(r"(?m)^(?P<indent>[ \t]*)(?:data|stringData)[ \t]*:[ \t]*\n"
                         r"(?P<body>(?:(?P=indent)[ \t]+\S[^\n]*(?:\n|\Z))+)")
# a cookie header (Cookie:, Set-Cookie:, curl's --cookie/-b) and, on its line, the cookies named
# for a session or a login: PHPSESSID, sessionid, connect.sid, remember_token, auth
_COOKIE_LINE = re.compile(r"(?i)(?:\b(?:set-)?cookies?\b|(?<!\S)-b)[\"']?[ \t]*[:=]?[ \t]*"
                          r"(?P<body>[^\n]+)")
_COOKIE = re.compile(r"(?P<key>(?<![\w.\-])[\w.\-]*(?i:sess|sid|auth|token|jwt|remember)[\w.\-]*)"
                     r"=(?P<q>)(?P<qval>[^;,\s'\"]{16,})")
_SESSION = "session_cookie"
# a name and its value as two fields: Kubernetes' `- name: API_TOKEN` / `value: ...`, a
# Postman variable's {"key": "apiKey", "value": "..."}
# also as attributes: Android's <meta-data android:name="...API_KEY" android:value="..." />
_NAMED_FIELD = re.compile(
    r"(?i)\b(?:name|key)[\"']?[ \t]*[:=][ \t]*[\"']?(?P<key>[\w.\-]{0,40}?(?:passw(?:or)?d|"
    r"passphrase|pwd|secret(?:[_\-]?key)?|token|api[_\-]?key|access[_\-]?key|private[_\-]?key|"
    r"credentials?))[\"']?(?:[ \t]*[,\n]|(?<=[\"'])[ \t])\s*[\"']?(?:[\w\-]+:)?value[\"']?"
    r"(?P<sep>[ \t]*[:=][ \t]*)(?:(?P<q>[\"'])(?P<qval>[^\"'\n]*)(?P=q)|(?P<val>[^\s\"',}]+))")
_SEALED_MANIFEST = re.compile(r"(?m)^[ \t]*[\"']?kind[\"']?[ \t]*:[ \t]*[\"']?SealedSecret\b")
_ENCRYPTED_BLOCK = re.compile(r"(?m)^(?P<indent>[ \t]*)encryptedData[ \t]*:[ \t]*\n"
                              r"(?P<body>(?:(?P=indent)[ \t]+\S[^\n]*(?:\n|\Z))+)")
_KUBERNETES = "kubernetes_secret"
_MARK = mark(_KUBERNETES)
_DATA_ENTRY = re.compile(r"(?m)^(?P<head>[ \t]+[\w.\-]+[ \t]*:[ \t]*)(?P<q>[\"']?)"
                         r"(?P<value>[^\s#\"'][^\n]*?)(?P=q)[ \t]*$")


def hide_assignments(text: str, found: list[str]) -> str:
    """Every `key = literal` (or `<key>literal</key>`) whose key names a secret, with the key
    and quotes kept."""
    if "</" in text:
        text = _ELEMENT.sub(lambda m: _hide_assignment(m, found, "="), text)
    if "variable" in text:
        text = _VARIABLE.sub(lambda m: _hide_assignment(m, found, "="), text)
    if "alue" in text:
        text = _NAMED_FIELD.sub(lambda m: _hide_assignment(m, found, "="), text)
    if "<key>" in text:
        text = _PLIST.sub(lambda m: _hide_assignment(m, found, "="), text)
    if "," in text or "\t" in text:
        text = _ROW.sub(lambda m: _hide_assignment(m, found, "=") if password_like(m.group("val"))
                        else m.group(0), text)  # a row, not a header: API_KEY,NAME,CREATED
    if any(op in text for op in ("?:", "??", "||", " or ", ",")):
        text = _FALLBACK.sub(lambda m: _hide_assignment(m, found, "="), text)
    if "ookie" in text or "-b" in text:
        text = _COOKIE_LINE.sub(lambda m: _hide_cookies(m, found), text)
    return _ASSIGNMENT.sub(lambda m: _hide_assignment(m, found), text)


def _hide_cookies(line: re.Match[str], found: list[str]) -> str:
    """A cookie header's session and login cookies, when their values look generated."""
    start = line.start("body") - line.start()

    def hide(cookie: re.Match[str]) -> str:
        value = cookie.group("qval")
        if is_placeholder(value) or not (any(c.isdigit() for c in value)
                                         and any(c.isalpha() for c in value)):
            return cookie.group(0)
        found.append(_SESSION)
        return splice(cookie, "qval", _SESSION)

    return line.group(0)[:start] + _COOKIE.sub(hide, line.group("body"))


def hide_kubernetes_secrets(text: str, found: list[str]) -> str:
    """Values under `data:`/`stringData:` in YAML documents of `kind: Secret`: all secrets."""
    if "Secret" not in text or not _SECRET_MANIFEST.search(text):
        return text
    parts = _DOCUMENTS.split(text)  # documents, with the `---` separators kept between them
    for i in range(0, len(parts), 2):
        if _SECRET_MANIFEST.search(parts[i]):
            parts[i] = _DATA_BLOCK.sub(lambda m: _hide_data(m, found), parts[i])
    return "".join(parts)


def sealed_values(text: str) -> list[tuple[int, int]]:
    """Where a SealedSecret's `encryptedData:` entries are: ciphertext made to be committed, only
    the cluster's controller can open it."""
    if "SealedSecret" not in text:
        return []
    spans, start = [], 0
    for end in [m.start() for m in _DOCUMENTS.finditer(text)] + [len(text)]:
        if _SEALED_MANIFEST.search(text, start, end):
            spans += [m.span("body") for m in _ENCRYPTED_BLOCK.finditer(text, start, end)]
        start = end
    return spans


def _hide_data(block: re.Match[str], found: list[str]) -> str:
    """Each entry's value replaced; a block scalar (`tls.key: |`) loses its indented lines,
    which become one marker."""
    lines = [block.group(0)[: block.start("body") - block.start()]]
    scalar_indent = -1  # inside a block scalar: the indent of its key
    for line in block.group("body").splitlines(keepends=True):
        indent = len(line) - len(line.lstrip(" \t"))
        if 0 <= scalar_indent < indent:
            if lines[-1].strip() != _MARK:  # the first line of it; the others go
                if line.strip() != _MARK:
                    found.append(_KUBERNETES)
                lines.append(line[:indent] + _MARK + "\n")
            continue
        scalar_indent = -1
        entry = _DATA_ENTRY.match(line)
        if entry is None or is_placeholder(entry.group("value")):
            lines.append(line)
        elif entry.group("value") in ("|", ">", "|-", ">-", "|+", ">+"):
            scalar_indent = indent
            lines.append(line)
        else:
            found.append(_KUBERNETES)
            lines.append(splice(entry, "value", _KUBERNETES) + line[entry.end():])
    return "".join(lines)


def _hide_assignment(match: re.Match[str], found: list[str], sep: str | None = None) -> str:
    key = match.group("key")
    if in_arn(match.string, match.start()) or _REFERENCE_KEY.match(key):
        return match.group(0)
    quoted = match.group("q") is not None
    value = match.group("qval") if quoted else match.group("val")
    if not _is_literal_secret(key, sep or match.group("sep"), value, quoted):
        return match.group(0)
    kind = _kind_of(key)
    found.append(kind)
    if quoted:
        return splice(match, "qval", kind)
    return splice(match, "val", kind, trim=len(value) - len(value.rstrip(".")))


def _kind_of(key: str) -> str:
    squashed = key.lower().replace("_", "").replace("-", "")
    best, best_pos = "secret", -1
    for word, kind in _KEY_WORDS.items():
        pos = squashed.rfind(word)
        if pos > best_pos:
            best, best_pos = kind, pos
    return best


def _is_literal_secret(key: str, sep: str, value: str, quoted: bool) -> bool:
    """Whether an assigned value is a real literal rather than code, a type or a template."""
    value = value.rstrip(".") if not quoted else value
    if is_placeholder(value) or is_public(value) or value.lower().startswith(_REFERENCE_START):
        return False
    if _NOT_A_CREDENTIAL.fullmatch(value) or is_resource_path(value):
        return False
    if sep.strip() == "=>":  # PHP arrays also map a field to its rules or cast: 'hashed'
        return password_like(value) and "|" not in value
    if quoted:
        return len(value) >= 4
    if "(" in value or "[" in value:
        return False  # a call or a subscript: get_token(), os.environ["X"]
    env_style = sep == "=" or sep.strip() == ":"  # KEY=value (.env, shell) or KEY: value (YAML)
    if key.lstrip("-").isupper() and env_style and len(value) >= 4:
        return True  # in .env files, shells and compose files the value is always a literal
    if _IDENTIFIER.fullmatch(value):
        # pw, db_password, settings.token, CamelCase: variables. hunter2, ya29.a0Af6...: literals.
        if _looks_random(value):
            return True
        has_digit = any(c.isdigit() for c in value)
        has_alpha = any(c.isalpha() for c in value)
        if _LEET.search(value) and "." not in value:
            return True  # s3cret_pw: a digit inside a word is a password's, not a name's
        return has_digit and has_alpha and "_" not in value and "." not in value and len(value) >= 6
    return len(value) >= 6 and not value.isdigit()


def _looks_random(value: str) -> bool:
    """Many digits among mixed-case letters: generated, not a name someone typed."""
    digits = sum(c.isdigit() for c in value)
    mixed_case = any(c.isupper() for c in value) and any(c.islower() for c in value)
    return len(value) >= 12 and digits >= 2 and (mixed_case or digits >= 4)
