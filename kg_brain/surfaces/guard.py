"""Who may call the HTTP service: its user, and nobody a web page or another account sends.

A web page the user visits can send requests to 127.0.0.1, and read the answers when its own
name resolves there (DNS rebinding); the MCP specification for streamable HTTP therefore has
servers validate `Origin`. Here, before anything else runs:
- a request whose `Origin` is present and not a loopback origin (nor one of
  KG_BRAIN_HTTP_ALLOWED_ORIGINS), or whose `Host` is not an address the service listens on
  (127.0.0.1, localhost or [::1] with its port, the address it is bound to, or one of
  KG_BRAIN_HTTP_ALLOWED_HOSTS) is refused with 403 and a line on stderr;
- every other request carries `Authorization: Bearer <token>` (401 otherwise): the token file
  in the state folder, made on the first start (kg_brain/base/private.py), or KG_BRAIN_HTTP_TOKEN.
  `/health` is no exception: its one caller, the relay, holds the token, and what it reports
  (the Neo4j URI, the process id) is nobody else's business; a 401 still tells a prober that
  something answers on the port. KG_BRAIN_HTTP_AUTH=none drops the token, on loopback only.

fastmcp's own Host/Origin guard (off by default) compares host names without the port and
answers 421 without a log line, so this one is used instead.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.middleware import Middleware as ASGIMiddleware
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from kg_brain.base.errors import SetupError
from kg_brain.base.private import ensure_token, token_file
from kg_brain.base.settings import Settings

log = logging.getLogger(__name__)
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
WILDCARDS = ("0.0.0.0", "::", "")


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def loopback_origin(origin: str) -> bool:
    """http(s) from this machine: a local tool's page, never a site on the network."""
    try:
        parts = urlsplit(origin)
        return parts.scheme in ("http", "https") and is_loopback(parts.hostname or "")
    except ValueError:
        return False


def own_hosts(settings: Settings, host: str, port: int) -> frozenset[str]:
    """The `Host` values a client of the service bound to host:port sends, and the allow-list."""
    names = set(LOOPBACK_NAMES)
    if host not in WILDCARDS:
        names.add(f"[{host}]" if ":" in host else host.lower())
    hosts = {f"{name}:{port}" for name in names} | (names if port == 80 else set())
    return frozenset(hosts | set(settings.kg_brain_http_allowed_hosts))


async def refuse(scope: Scope, receive: Receive, send: Send, status: int, reason: str,
                 headers: dict[str, str] | None = None) -> None:
    client = (scope.get("client") or ("unknown",))[0]
    log.warning("refused %s %s from %s: %s", scope.get("method"), scope.get("path"), client,
                reason)
    await JSONResponse({"error": reason}, status_code=status, headers=headers)(
        scope, receive, send)


class LocalOnly:
    """ASGI middleware: 403 for a request a web page elsewhere could have sent."""

    def __init__(self, app: ASGIApp, hosts: frozenset[str], origins: frozenset[str]) -> None:
        self.app = app
        self.hosts = hosts
        self.origins = origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            reason = self.refusal(Headers(scope=scope))
            if reason:
                await refuse(scope, receive, send, 403, reason)
                return
        await self.app(scope, receive, send)

    def refusal(self, headers: Headers) -> str | None:
        origin = headers.get("origin")
        if origin is not None and origin.lower().rstrip("/") not in self.origins \
                and not loopback_origin(origin):
            return f"Origin {origin!r} is not allowed (KG_BRAIN_HTTP_ALLOWED_ORIGINS)"
        host = headers.get("host", "").lower()
        if host not in self.hosts:
            return f"Host {host!r} is not this service's address (KG_BRAIN_HTTP_ALLOWED_HOSTS)"
        return None


class BearerAuth:
    """ASGI middleware: 401 for a request whose bearer token does not match (constant time)."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                await refuse(scope, receive, send, 401, "missing or wrong bearer token",
                             {"WWW-Authenticate": 'Bearer realm="kg-brain"'})
                return
        await self.app(scope, receive, send)


def http_middleware(settings: Settings, host: str, port: int) -> list[ASGIMiddleware]:
    """The Host and Origin check, then the token (made on the first start); says at start
    which token the service requires, or that it requires none."""
    local = ASGIMiddleware(LocalOnly, hosts=own_hosts(settings, host, port),
                           origins=frozenset(settings.kg_brain_http_allowed_origins))
    if settings.kg_brain_http_auth == "none":
        if not is_loopback(host):
            raise SetupError(f"binding to {host} exposes your memory to the network: "
                             "KG_BRAIN_HTTP_AUTH=none is for loopback only; bind to 127.0.0.1 "
                             "or let the service require its token")
        log.warning("KG_BRAIN_HTTP_AUTH=none: the service requires no token; every process "
                    "and account on this machine can read and change all memory")
        return [local]
    token = ensure_token(settings)
    log.info("every request needs the bearer token %s", "in KG_BRAIN_HTTP_TOKEN"
             if settings.kg_brain_http_token else f"in {token_file(settings)}")
    return [local, ASGIMiddleware(BearerAuth, token=token)]
