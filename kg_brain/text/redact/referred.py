"""Passwords a note refers to rather than holds in a `key=value`: a command's password flag or
argument (`mysql -pS3cret`, `sshpass -p ...`, `redis-cli -a ...`, `gpg --passphrase ...`,
`-passout pass:...`, `smbclient -U user%...`, `xfreerdp /p:...`, `lftp -u user,...`,
`htpasswd -nbB user ...`, `net use \\\\host\\share ...`, Oracle's `user/...@db`,
`mc alias set NAME URL KEY ...`, `openssl enc -k ...`, Composer's `http-basic`, Bundler's
`BUNDLE_<HOST>=user:...`, `-auth user:...`, a token after a command's `login`), a password echoed
into a command that reads it from stdin (`echo ... | gpg --passphrase-fd 0`,
`echo user:... | chpasswd`), a redis `requirepass`, a pgbouncer userlist line, a user and a
password passed together (`.login("user", "...")`, `auth=("user", "...")`,
`NetworkCredential(...)`), PowerShell's `ConvertTo-SecureString '...' -AsPlainText`, SQL's
`IDENTIFIED BY ...`, a literal handed to a hashing call (`Hash::make('...')`,
`set_password("...")`), a Redis ACL's `>...`, net-snmp's `-c`/`-A`/`-X`, a Wi-Fi join in code
(`WiFi.begin("ssid", "...")`), a value set under a secret's name (`user-secrets set NAME ...`), a
config directive and its value alone on a line (`bindpw ...`, `storePassword '...'`), a key file
printed on the line after `cat config/master.key` (or a secret after `| base64 -d`), a login
and its password written as a pair (`admin / Adm1n!2024`, `sign in with viewer / ...`,
`log in as builder:...`), and a password or passphrase named by a word before it (`the staging
db password is sunshine2024`, `new root pw on db2 is ...`, `gpg passphrase: QuietOrbitMeadow`).

A value counts only when it reads as a password: letters with digits or symbols, or three or more
capitalised words run together; never a variable, a path, a prompt, a port or an English word, so
`mysql -u root -p`, `ssh -p 2222` and `password policy` come back unchanged.
"""

from __future__ import annotations

import re
from functools import partial

from kg_brain.text.redact.marks import is_placeholder, is_resource_path, mark

_VALUE = r"(?P<q>['\"]?)(?!\[REDACTED:)(?P<secret>[^\s'\"]{4,128})(?P=q)"
_HTPASSWD = r"\bhtpasswd(?=(?:\s+-[A-Za-z]+)*?\s+-[A-Za-z]*b)"  # -b: the password is an argument
_HT_FLAG = r"(?:\s+-[A-Za-z]+)*?\s+-[A-Za-z]*"
_HT_FLAGS = r"(?:\s+-[A-Za-z]+)+"
_WORD = r"\s+[^\s\-]\S*"  # one positional argument
_ACCOUNTS = r"(?:admin|root|administrator|sa|ubuntu|ec2-user|pi|guest|ops)"
# (literals one of which a match contains, pattern): a note without them skips the pattern
_FLAGS = tuple((words, re.compile(p, re.M)) for words, p in (
    # the password glued to -p (mysql, mariadb, 7-Zip): a space after -p means "prompt"
    (("mysql", "mariadb", "7z"), r"\b(?:mysql\w*|mariadb\w*|7z[ar]?)\b[^\n]*?\s-p" + _VALUE),
    # a flag whose next word is the password, on the commands that take it that way
    (("sshpass", "login", "mongo", "mysql", "mariadb", "racadm", "rdesktop", "ncftp", "cqlsh"),
     r"\b(?:sshpass|(?:docker|podman|nerdctl|helm|oras|buildah)\s+(?:registry\s+)?login|"
     r"mongo\w*|mysql\w*|mariadb\w*|racadm|rdesktop|ncftp\w*|cqlsh)\b[^\n]*?\s-p\s+" + _VALUE),
    # FreeRDP's /p:, PuTTY's plink and pscp -pw
    (("/p:", "-pw"), r"(?:(?<!\S)/p:|\b(?:plink|pscp|psftp)\b[^\n]*?\s-pw\s+)" + _VALUE),
    # lftp -u user,password
    (("lftp",), r"\blftp\b[^\n]*?\s-u\s+[^\s,]+," + _VALUE),
    (("zip", "mosquitto_", "sqlcmd"), r"\b(?:zip|mosquitto_\w+|sqlcmd)\b[^\n]*?\s-P\s+" + _VALUE),
    (("redis-cli",), r"\bredis-cli\b[^\n]*?\s-a\s+" + _VALUE),
    (("ldap",), r"\bldap\w+\b[^\n]*?\s-w\s+" + _VALUE),
    (("pass",), r"\s-(?:storepass|keypass|srcstorepass|deststorepass)\s+" + _VALUE),
    (("pass:",), r"\bpass:" + _VALUE.replace("{4,", "{3,")),  # openssl's -passin/-passout pass:
    (("%",), r"\s-U\s+[\w.\-]+%" + _VALUE),  # smbclient -U user%password
    # htpasswd -b takes the password last: after the user with -n (no file), else after the
    # file and the user; the flags may come apart (-b -c) or together (-nbB)
    (("htpasswd",), _HTPASSWD + r"(?=" + _HT_FLAG + r"n)" + _HT_FLAGS + _WORD + r"\s+" + _VALUE),
    (("htpasswd",),
     _HTPASSWD + r"(?!" + _HT_FLAG + r"n)" + _HT_FLAGS + _WORD * 2 + r"\s+" + _VALUE),
    (("requirepass", "masterauth"), r"\b(?:requirepass|masterauth)[ \t]+" + _VALUE),  # redis
    (("rabbitmqctl",), r"\brabbitmqctl\s+(?:add_user|change_password)\s+\S+\s+" + _VALUE),
    (("net",), r"\bnet\s+(?:user\s+\S+|use\s+(?:[A-Za-z]:\s+)?\\\\\S+)\s+"
     r"(?P<q>['\"]?)(?P<secret>[^\s'\"/]{4,128})(?P=q)"),
    # Oracle's tools take user/password@database as their first argument
    (("sqlplus", "sqlldr", "expdp", "impdp", "rman", "dgmgrl"),
     r"\b(?:sqlplus|sqlldr|expdp|impdp|rman|dgmgrl)(?:\s+-\w+)*\s+(?:\w+=)?[\w$#]+/"
     r"(?P<q>\"?)(?P<secret>[^\s/\"]{1,128}?)(?P=q)(?=@[\w.:/\-]+(?:\s|$)|\s|$)"),
    # MinIO's client: mc alias set NAME URL ACCESS_KEY SECRET_KEY
    (("mc ",), r"\bmc\s+(?:alias\s+set|config\s+host\s+add)(?:\s+\S+){3}\s+" + _VALUE),
    # "user:password" piped into chpasswd
    (("chpasswd",), r"\becho\s+(?:-n\s+)?(?P<q>['\"]?)[\w.\-]+:(?P<secret>[^\s'\"]{4,128})(?P=q)"
     r"\s*\|[^\n|]*?\bchpasswd\b"),
    # pgbouncer's userlist.txt: "user" "password" lines
    (("userlist",), r"(?m)^\"[\w.@\-]+\"[ \t]+(?P<q>\")(?P<secret>(?!md5|SCRAM)[^\"\s]{4,128})\""),
    # echoed into a command that reads its password from stdin
    (("echo",), r"\becho\s+(?:-n\s+)?" + _VALUE + r"\s*\|[^\n|]*?"
     r"(?:\bsudo\s+-S|--passphrase-fd[ =]0|--password-stdin|\bpasswd\s+--stdin)\b"),
    (("pass",), r"(?<!\S)--[\w\-]*pass(?:word|phrase)?(?:[ =])" + _VALUE),
    # a value written into a key or password file: echo ... > config/master.key, > .vault_pass
    (("echo", "printf"), r"\b(?:echo|printf)\s+(?:-n\s+)?" + _VALUE + r"\s*>>?\s*[^\s;&|]*"
     r"(?i:\.key|key|token|secret|passw(?:or)?d|pass|credentials?)(?:\.\w+)?(?=[\s;&|]|$)"),
    # openssl enc -k: the password itself (-kfile names a file)
    (("openssl",), r"\bopenssl\b[^\n]*?\s-k\s+" + _VALUE),
    # Composer's http-basic HOST USER PASSWORD; Bundler's BUNDLE_<HOST>=user:password
    (("http-basic",), r"\bcomposer\b[^\n]*?\shttp-basic\.\S+\s+\S+\s+" + _VALUE),
    (("bundle_",), r"\bBUNDLE_[A-Z0-9_]+__[A-Z0-9_]+=(?P<q>['\"]?)[^\s:'\"]+:"
     r"(?P<secret>[^\s'\"]{4,128})(?P=q)"),
    # a flag named for a login pair, then user:password (jenkins-cli -auth, --user, --creds)
    (("auth", "user", "cred"),
     r"(?<!\S)--?(?:auth|user|creds?|credentials|basic-auth|proxy-user)[ =]['\"]?"
     r"(?P<user>[^\s:'\"@]+):(?P<q>)(?P<secret>(?!(?P=user)\b)[^\s'\"@]{4,128})"),
    # a token given to a command's login: wandb login KEY, cargo login TOKEN
    (("login",), r"\b[\w\-]+\s+(?:auth\s+)?login(?:\s+-{1,2}[\w\-]+)*\s+" + _VALUE),
    # a user and a password passed together: .login("user", "password"), requests'
    # auth=("user", "password"), HTTPBasicAuth(...), NetworkCredential(...)
    (("login(", "auth", "credential"),
     r"(?i)(?:\.login|auth|credentials?)\w*\s*[=(]\s*\(?\s*[\"'][^\"'\n]+[\"']\s*,\s*" + _VALUE),
    # SQL's CREATE/ALTER USER ... IDENTIFIED BY (MySQL's WITH <plugin> BY); not BY PASSWORD
    # or BY VALUES, which take a hash
    (("identified",),
     r"(?i)\bIDENTIFIED\s+(?:WITH\s+\S+\s+)?BY\s+(?!PASSWORD\b|VALUES\b)" + _VALUE),
    # a literal handed to a password hashing or setting call: Hash::make('...'),
    # make_password("..."), bcrypt.hashSync('...', 10), user.set_password("...")
    (("hash", "bcrypt", "password"),
     r"(?i)(?:\bHash::make|\bbcrypt(?:\.hash(?:Sync)?)?|\bpassword_hash|\bmake_password|"
     r"\bgenerate_password_hash|\bhashpw|\bPassword\.create|\.?set_?password)\s*\(\s*"
     r"(?P<q>['\"])(?P<secret>[^'\"\n]{4,128})(?P=q)"),
    # a Redis ACL rule's >password (ACL SETUSER, an ACL file's user lines)
    (("setuser", "user"), r"(?im)(?:\bACL\s+SETUSER|^[ \t]*user)\s+[\w.@\-]+(?:\s+[^\s>]\S*)*?"
     r"\s+>(?P<q>)(?P<secret>\S{4,128})"),
    # net-snmp's community (-c) and SNMPv3 auth and privacy passphrases (-A, -X)
    (("snmp",), r"\bsnmp\w*\b[^\n]*?\s-[cAX]\s+" + _VALUE),
    # a Wi-Fi network joined in code: WiFi.begin("ssid", "..."), wlan.connect('ssid', '...')
    (("wifi", "wlan", "sta"),
     r"(?i)\b(?:wifi|wlan|sta|station)\w*\.(?:begin|connect|softAP)\s*\(\s*[\"'][^\"'\n]+[\"']\s*,"
     r"\s*" + _VALUE),
    # a value set under a name naming a secret: dotnet user-secrets set "X:ClientSecret" "...",
    # yarn config set npmAuthToken ...
    (("set",), r"(?i)\bset\s+[\"']?[\w:./\-]*(?:secret|token|passw(?:or)?d|api[_\-]?key|"
     r"credential)[\w:./\-]*[\"']?\s+" + _VALUE),
    # a key or password file printed, its content on the next line: cat config/master.key,
    # kubectl get secret ... | base64 -d
    (("cat", "type", "head", "get-content", "base64"),
     r"(?m)^[^\n]*(?:\b(?:cat|type|head|more|bat|Get-Content)\s+(?:-\S+\s+)*[^\s|;&>]*"
     r"(?i:\.key|key|token|secret|passw(?:or)?d|pass|credentials?)(?:\.\w+)?|\bsecrets?\b[^\n]*"
     r"\|\s*base64\s+(?:-d|--decode|-D))[ \t]*\n(?P<q>)(?P<secret>\S{8,256})[ \t]*$"),
    # PowerShell: ConvertTo-SecureString 'password' -AsPlainText
    (("convertto-securestring",),
     r"(?i)\bConvertTo-SecureString\s+(?:-String\s+)?" + _VALUE + r"\s+-AsPlainText"),
))
# "admin / Adm1n!2024", "ops / S3cret" after a login word, "root:hunter22x" after a service name
# or "sign in with viewer / Juniper#4", or a well-known account's: "use admin / k1wi.Falcon"
# a config line of a directive naming a password and its value alone: nslcd's `bindpw ...`,
# Apache's `AuthLDAPBindPassword "..."`, Gradle's `storePassword '...'`
# (not a struct field's type: `Token *oauth2.Token`)
_DIRECTIVE = re.compile(r"(?im)^[ \t]*[A-Za-z][\w.\-]{0,40}?(?:passw(?:or)?d|passwd|pw|passphrase|"
                        r"secret|token|authtok)[ \t]+(?![*&])" + _VALUE + r"[ \t]*;?[ \t]*$")
_PAIR = re.compile(r"(?i)(?:\b(?:log[ -]?in|logon|sign[ -]?in|creds?|credentials|account|"
                   r"user(?:name)?)\b[^\n/]{0,40}?[\w.@\-]+|(?<![\w.@\-])" + _ACCOUNTS + r")"
                   r"\s+/\s+" + _VALUE)
_ACCOUNT_PAIR = re.compile(r"(?i)(?:\b" + _ACCOUNTS + r"|\b(?:as|log[ -]?in|sign[ -]?in)[ \t]+"
                           r"(?:with[ \t]+)?[a-z][\w.\-]*)"
                           r":(?P<q>)(?P<secret>(?!\d)[^\s:'\"()]{4,64})(?=[\s,;)]|$)")
# a password word, then connecting words on the same line, then the value
_NAMED = re.compile(
    r"(?i)\b(?:passw(?:or)?d|pass|pw|pwd|passphrase|passcode)\b"
    # (a network OS's encryption type before it: `password 0 ...`, `secret 0 ...`)
    r"(?:[ \t]+(?:is|was|are|now|to|as|of|[0-7](?=[ \t])|=(?!=)|:|-|"
    r"for(?:[ \t]+[\w.\-]+){1,4}[ \t]*[:=]"
    r"|(?:on|at|in|for)(?:[ \t]+[\w.\-/]+){1,4}?(?=[ \t]+(?:is|was)\b)))*"
    # `password == other`, `pw != ""`: a comparison, not a value
    r"[ \t]*(?::|(?<![=!<>])=(?!=))?[ \t]*(?![=!<>]=)" + _VALUE)
_CAPITALISED_WORDS = re.compile(r"(?:[A-Z][a-z]{2,}){3,}")
_PORT_OR_NUMBER = re.compile(r"[\d:./\-]+")
_CODE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+|.*[()\[\]].*|.*://.*")  # a.b, f(), x[0]
_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
_TAG = re.compile(r"![A-Za-z]+")  # a YAML tag: !vault, !Ref
_FILE_NAME = re.compile(r"[./]")


def hide_referred(text: str, found: list[str]) -> str:
    """Every password behind a flag, in a pair or named by a password word, hidden."""
    lowered = text.lower()
    for words, pattern in (*_FLAGS, (("pw", "pass", "secret", "token", "authtok"), _DIRECTIVE),
                           (("/",), _PAIR), ((":",), _ACCOUNT_PAIR),
                           (("pass", "pw"), _NAMED)):
        if any(word in lowered for word in words):
            # after "admin / ", a dotted name is a password (k1wi.Falcon), not code
            text = _hide_all(pattern, text, found)
    return text


def _hide_all(pattern: re.Pattern[str], text: str, found: list[str]) -> str:
    """Every value the pattern finds; again while that hides one, as a command's later flags
    (snmpget ... -A ... -X ...) are reached once the earlier ones are hidden."""
    hide = partial(_hide, found=found, pattern=pattern)
    while (hidden := pattern.sub(hide, text)) != text:
        text = hidden
    return text


def _hide(match: re.Match[str], found: list[str], pattern: re.Pattern[str]) -> str:
    value = match.group("secret") if match.group("q") else match.group("secret").rstrip(".,;)")
    # after "admin / ", a dotted name is a password (k1wi.Falcon), not code; after a config
    # directive (bindpw ...) too when it opens with a capital (a package's type does not)
    dotted = pattern is _PAIR or (pattern is _DIRECTIVE and value[:1].isupper())
    if not password_like(value, dotted):
        return match.group(0)
    found.append("password")
    start = match.start("secret") - match.start()
    whole = match.group(0)
    return whole[:start] + mark("password") + whole[start + len(value):]


def password_like(value: str, dotted: bool = False) -> bool:
    """Typed by a person as a password: letters with digits or symbols, or capitalised words
    run together; not a reference, path, number, port, placeholder or plain word, nor code
    (a.b, f(), x[0]) unless `dotted` says a dotted name is a password where it stands."""
    if len(value) < 6 or "REDACTED" in value or is_placeholder(value) or _TAG.fullmatch(value):
        return False
    if value[0] == "@" and not _FILE_NAME.search(value):
        value = value[1:]  # a password beginning with @, not curl's @file
    if value[0] in "$%{}<>[(/~.@-" or _PORT_OR_NUMBER.fullmatch(value) or "=" in value or (
            is_resource_path(value)) or "</" in value:
        return False  # ..., or the end of a template and a closing tag: ${db.password}</password>
    if _CODE.fullmatch(value) and not (dotted and _DOTTED.fullmatch(value)):
        return False
    letters = sum(c.isalpha() for c in value)
    digits = sum(c.isdigit() for c in value)
    symbols = len(value) - letters - digits
    if letters and (digits or symbols):
        return not value.endswith((".log", ".txt", ".json", ".yaml", ".yml", ".pem", ".key"))
    return _CAPITALISED_WORDS.fullmatch(value) is not None
