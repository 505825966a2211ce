"""Files only the user can read: memory holds a user's projects, decisions and incidents, and
the state folder holds the HTTP service's access token, its socket and the Neo4j password that
global wiring refers to.

The folders kg-brain keeps (KG_BRAIN_DATA_DIR, with the local Neo4j and the state folder, and
KG_BRAIN_CACHE_DIR) are 0700 and their files 0600 (0700 for executables). A folder is made
private before anything is written in it, so a file a process creates with its usual umask is
never reachable by other accounts on the way; the processes kg-brain starts that write files of
their own (Neo4j, Maven) run with UMASK; `tighten` brings an install made before this rule to it.
"""

from __future__ import annotations

import logging
import os
import secrets
import stat
import threading
from pathlib import Path

from kg_brain.base.errors import SetupError
from kg_brain.base.settings import Settings

log = logging.getLogger(__name__)
UMASK = 0o077
OTHERS = 0o077  # the group and other permission bits
TOKEN_FILE = "token"
PASSWORD_FILE = "neo4j-password"


def private_dir(path: Path) -> Path:
    """`path` as a folder only the user can enter: missing folders on the way are created 0700
    (the XDG rule for data folders), an existing `path` loses its group and other bits."""
    missing = [folder for folder in (path, *path.parents) if not folder.exists()]
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:
            pass
    _strip(path)
    return path


def tighten(root: Path) -> None:
    """Take the group and other bits off `root` and everything under it; symbolic links are
    neither changed nor followed."""
    if not root.is_dir():
        return
    _strip(root)
    for folder, dirs, files in os.walk(root):
        for name in (*dirs, *files):
            _strip(Path(folder) / name)


def tighten_install(settings: Settings) -> None:
    """The data and cache folders as a whole: run on every server start."""
    tighten(Path(settings.kg_brain_data_dir))
    tighten(Path(settings.kg_brain_cache_dir))


def _strip(path: Path) -> None:
    try:
        mode = path.lstat().st_mode
        if mode & OTHERS and not stat.S_ISLNK(mode):
            os.chmod(path, stat.S_IMODE(mode) & ~OTHERS)
    except FileNotFoundError:  # a file its program removed meanwhile
        pass
    except OSError as exc:
        log.warning("could not make %s private: %s", path, exc)


def token_file(settings: Settings) -> Path:
    """The HTTP service's token: what its clients (the relay, what `kg-brain wire --url`
    wires) read, never copy, to call the service."""
    return settings.state_dir / TOKEN_FILE


def service_token(settings: Settings) -> str | None:
    """The bearer token a client of the HTTP service sends: KG_BRAIN_HTTP_TOKEN when set, else
    the token file's; None when KG_BRAIN_HTTP_AUTH=none or no service has made one yet."""
    if settings.kg_brain_http_auth == "none":
        return None
    if settings.kg_brain_http_token:
        return settings.kg_brain_http_token
    path = token_file(settings)
    try:
        token = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None
    if not token:
        raise SetupError(f"the token file {path} is empty: delete it and the HTTP service "
                         "makes a new one on its next start")
    return token


def ensure_token(settings: Settings) -> str:
    """The token the HTTP service requires, made on its first start: 256 random bits in a file
    only the user can read. Published with a hard link, so two processes starting at once
    agree on one token and a reader never sees a half-written file."""
    token = service_token(settings)
    if token is not None:
        return token
    if settings.kg_brain_http_auth == "none":
        raise SetupError("KG_BRAIN_HTTP_AUTH=none: the HTTP service has no token")
    path = token_file(settings)
    private_dir(path.parent)
    draft = path.with_name(f".{TOKEN_FILE}.{os.getpid()}.{threading.get_ident()}")
    fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(secrets.token_urlsafe(32) + "\n")
        os.link(draft, path)
        log.info("made the HTTP service's token: %s", path)
    except FileExistsError:  # another process made it first: theirs is the token
        pass
    finally:
        draft.unlink()
    return ensure_token(settings)


def keep_password(settings: Settings, password: str) -> Path:
    """The Neo4j password in a file only the user can read, for configuration files to name
    (NEO4J_PASSWORD_FILE) instead of holding it; replaced whole, never seen half-written."""
    path = private_dir(settings.state_dir) / PASSWORD_FILE
    draft = path.with_name(f".{PASSWORD_FILE}.{os.getpid()}.{threading.get_ident()}")
    fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(password)
    draft.replace(path)
    return path
