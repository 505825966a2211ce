"""A real Neo4j Community server provisioned from Maven Central and run with the local Java.

The jars are resolved once into a cache folder by Maven (the `pom.xml` beside this file); the
server runs the entry class its release declares (what `bin/neo4j console` starts: 5.26
`org.neo4j.server.CommunityEntryPoint`, 2026.x `org.neo4j.server.Neo4jCommunity`) with the Java of
JAVA_HOME (settings.java_home), else the one on PATH (17+ for 5.x, 21+ for the calendar releases),
and a generated `neo4j.conf` (loopback only, laptop-sized memory, usage reporting off). With a
`browser_port`, a loopback content server beside it serves `<home>/browser/` (the kg-brain guide
and style, written there by the caller) and the Browser applies both on connect. The home and the
jar cache are private to the user (kg_brain/base/private.py): folders 0700, files 0600; Neo4j and
Maven run with a umask that keeps what they write so, and an older install is tightened on start.
"""

from __future__ import annotations

import logging
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import time
import zipfile
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from neo4j import GraphDatabase
from neo4j import exceptions as nex

from kg_brain.base.errors import SetupError, StoreUnavailable
from kg_brain.base.private import UMASK, private_dir, tighten
from kg_brain.base.settings import load_settings
from kg_brain.store.db import Connection
from kg_brain.store.localdb.content import (
    ContentServer,
    live_pid,
    port_open,
    post_connect_commands,
    wait_exit,
)

log = logging.getLogger(__name__)

# The server jar names the class that starts the release (a service of this interface)
ENTRY_POINT_SERVICE = "META-INF/services/org.neo4j.server.startup.EntryPoint"
JVM_FLAGS = (
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:+UnlockExperimentalVMOptions",
    "-XX:+TrustFinalNonStaticFields",
    "-XX:+DisableExplicitGC",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Dlog4j2.disable.jmx=true",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class LocalNeo4j:
    """One server home: conf/, data/, logs/, run/ under `home`; jars shared in the cache."""

    home: Path
    bolt_port: int = 7687
    http_port: int = 7474
    heap: str = "1g"
    pagecache: str = "512m"
    version_range: str = "[5.26.0,5.27.0)"
    password: str | None = None
    cache_dir: Path | None = None
    browser_port: int | None = None  # the guide and style server; None = the Browser as shipped
    java_home: Path | None = None  # the Java that runs the server; None = the java on PATH

    # --- paths -------------------------------------------------------------------------------
    @property
    def lib_dir(self) -> Path:
        key = re.sub(r"[^0-9A-Za-z.]+", "_", self.version_range).strip("_")
        cache = self.cache_dir or load_settings().kg_brain_cache_dir  # the user's jar cache
        return cache / f"neo4j-{key}" / "lib"

    @property
    def pid_file(self) -> Path:
        return self.home / "run" / "kg-brain-neo4j.pid"

    @property
    def log_file(self) -> Path:
        return self.home / "logs" / "console.log"

    @property
    def uri(self) -> str:
        return f"bolt://127.0.0.1:{self.bolt_port}"

    @property
    def browser_dir(self) -> Path:
        """Where the caller writes the guide and style the content server serves."""
        return self.home / "browser"

    @property
    def content_server(self) -> ContentServer | None:
        if not self.browser_port:
            return None
        return ContentServer(self.browser_dir, self.browser_port, self.home / "run")

    # --- provisioning --------------------------------------------------------------------------
    def ensure_jars(self) -> Path:
        """Resolve the server and Browser jars with Maven, once; later runs use the cache."""
        marker = self.lib_dir / ".complete"
        if marker.exists():
            tighten(self.lib_dir.parent)
            return self.lib_dir
        _require_java(self.version_range, self.java_home)
        version = self._newest_version()
        private_dir(self.lib_dir)
        log.info("fetching Neo4j %s from Maven Central into %s", version, self.lib_dir)
        self._mvn("pom.xml", "dependency:copy-dependencies", f"-DoutputDirectory={self.lib_dir}",
                  f"-Dneo4j.version={version}", "-DincludeScope=runtime",
                  "-Dmaven.artifact.threads=8")
        marker.write_text(version, encoding="utf-8")
        return self.lib_dir

    def release(self) -> str:
        """The Neo4j release the jars hold (the newest of `version_range` when fetched)."""
        return (self.lib_dir / ".complete").read_text(encoding="utf-8").strip()

    def _newest_version(self) -> str:
        if not self.version_range.startswith(("[", "(")):
            return self.version_range
        out = private_dir(self.lib_dir.parent) / "version.txt"
        self._mvn("version-pom.xml", "dependency:list", f"-DoutputFile={out}",
                  f"-Dneo4j.version={self.version_range}", "-DexcludeTransitive=true")
        match = re.search(r"org\.neo4j:neo4j:pom:([\w.-]+)", out.read_text(encoding="utf-8"))
        if match is None:
            raise SetupError(f"no Neo4j release matches {self.version_range} on Maven Central")
        return match.group(1)

    def _mvn(self, pom_name: str, *args: str) -> None:
        mvn = shutil.which("mvn")
        if mvn is None:
            raise SetupError("Maven is needed to fetch Neo4j: install it "
                             "(e.g. apt-get install maven)")
        pom = files("kg_brain.store.localdb").joinpath(pom_name)
        proc = subprocess.run([mvn, "-q", "-B", "-f", str(pom), *args],
                              capture_output=True, text=True, check=False, umask=UMASK)
        if proc.returncode != 0:
            tail = (proc.stdout + proc.stderr).strip().splitlines()[-5:]
            raise SetupError("Maven could not fetch Neo4j: " + " | ".join(tail))

    def _credentials(self) -> str:
        if self.password:
            return self.password
        path = self.home / "conf" / "kg-brain-password"
        if not path.exists():
            private_dir(path.parent)
            path.write_text(secrets.token_urlsafe(18), encoding="utf-8")
            path.chmod(0o600)
        return path.read_text(encoding="utf-8").strip()

    def write_conf(self) -> Path:
        conf_dir = self.home / "conf"
        for sub in ("conf", "data", "logs", "run", "plugins", "import"):
            private_dir(self.home / sub)
        lines = {
            "server.default_listen_address": "127.0.0.1",
            "server.default_advertised_address": "127.0.0.1",
            "server.bolt.listen_address": f"127.0.0.1:{self.bolt_port}",
            "server.bolt.advertised_address": f"127.0.0.1:{self.bolt_port}",
            "server.http.listen_address": f"127.0.0.1:{self.http_port}",
            "server.http.advertised_address": f"127.0.0.1:{self.http_port}",
            "server.https.enabled": "false",
            "server.bolt.tls_level": "DISABLED",
            "server.memory.heap.max_size": self.heap,
            "server.memory.pagecache.size": self.pagecache,
            "dbms.usage_report.enabled": "false",
            "client.allow_telemetry": "false",
            "dbms.security.auth_enabled": "true",
            "server.directories.data": str(self.home / "data"),
            "server.directories.logs": str(self.home / "logs"),
            "server.directories.run": str(self.home / "run"),
            "server.directories.plugins": str(self.home / "plugins"),
            "server.directories.import": str(self.home / "import"),
            "db.tx_log.rotation.retention_policy": "2 files",
            "dbms.transaction.timeout": "60s",
        } | self._browser_conf()
        path = conf_dir / "neo4j.conf"
        path.write_text("".join(f"{k}={v}\n" for k, v in lines.items()), encoding="utf-8")
        return path

    def _browser_conf(self) -> dict[str, str]:
        """Open the Browser styled and with the guide: the post-connect commands fetch from the
        content server, which the host allowlist must name (Neo4j 5.26 still spells the setting
        `..._whitelist`; the `_allowlist` name of later releases fails its strict validation)."""
        if not self.browser_port:
            return {}
        return {
            "browser.post_connect_cmd": post_connect_commands(self.browser_port),
            "browser.remote_content_hostname_whitelist": "127.0.0.1,localhost,guides.neo4j.com",
        }

    # --- lifecycle -----------------------------------------------------------------------------
    def running_pid(self) -> int | None:
        return live_pid(self.pid_file)

    def connection(self, database: str = "neo4j") -> Connection:
        return Connection(self.uri, "neo4j", self._credentials(), database, local=True)

    def start(self, timeout_s: float = 120.0) -> Connection:
        """Start (or reuse) the server and wait until the driver connects. Its home is made
        private first (an install from before that rule), and again once every file of this
        start is written (the console log, the pid files, the Browser guide)."""
        tighten(self.home)
        try:
            return self._start(timeout_s)
        finally:
            tighten(self.home)

    def _start(self, timeout_s: float) -> Connection:
        if self.running_pid() is not None:
            self._start_content()
            self._wait_ready(timeout_s)
            return self.connection()
        for port in (self.bolt_port, self.http_port):
            if port_open(port):
                raise SetupError(
                    f"port {port} on 127.0.0.1 is taken by another process; set NEO4J_BOLT_PORT/"
                    "NEO4J_HTTP_PORT, or NEO4J_URI to use that server"
                )
        lib = self.ensure_jars()
        version = self.release()
        java = _require_java(version, self.java_home)
        self.write_conf()
        self._start_content()
        cmd = [java, f"-Xmx{self.heap}", f"-Xms{self.heap}", *JVM_FLAGS, "-cp", f"{lib}/*",
               entry_class(lib, version), f"--home-dir={self.home}",
               f"--config-dir={self.home / 'conf'}", "--console-mode"]
        with open(self.log_file, "ab") as out:
            proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, start_new_session=True,
                                    umask=UMASK)
        self.pid_file.write_text(str(proc.pid), encoding="utf-8")
        log.info("Neo4j starting (pid %s), log %s", proc.pid, self.log_file)
        self._wait_ready(timeout_s, proc)
        return self.connection()

    def _start_content(self) -> None:
        """The guide and style server (restarted if it died while Neo4j kept running)."""
        content = self.content_server
        if content is None:
            return
        try:
            content.ensure_running(self.home / "logs" / "browser-content.log")
        except OSError as exc:
            raise SetupError(str(exc)) from exc

    def _wait_ready(self, timeout_s: float, proc: subprocess.Popen[bytes] | None = None) -> None:
        deadline = time.monotonic() + timeout_s
        password = self._credentials()
        while time.monotonic() < deadline:
            if proc is not None and proc.poll() is not None:
                raise StoreUnavailable(
                    f"Neo4j exited with code {proc.returncode}; see {self.log_file}")
            if port_open(self.bolt_port) and self._try_connect(password):
                return
            time.sleep(0.5)
        raise StoreUnavailable(f"Neo4j did not become ready in {timeout_s:.0f}s; "
                               f"see {self.log_file}")

    def _try_connect(self, password: str) -> bool:
        """Connect; on first start replace the expired default password with ours."""
        try:
            with GraphDatabase.driver(self.uri, auth=("neo4j", password)) as driver:
                driver.verify_connectivity()
            return True
        except nex.AuthError:
            pass
        except (nex.ServiceUnavailable, OSError, nex.SessionExpired):
            return False
        try:
            with GraphDatabase.driver(self.uri, auth=("neo4j", "neo4j")) as driver:
                driver.execute_query(
                    "ALTER CURRENT USER SET PASSWORD FROM 'neo4j' TO $pw",
                    pw=password, database_="system",
                )
        except (nex.Neo4jError, nex.DriverError, OSError) as exc:
            log.debug("initial password not set yet: %s", exc)
        return False

    def stop(self, timeout_s: float = 60.0) -> bool:
        """SIGTERM and wait; returns False when nothing was running."""
        if self.content_server is not None:
            self.content_server.stop()
        pid = self.running_pid()
        if pid is None:
            return False
        os.kill(pid, signal.SIGTERM)
        if not wait_exit(pid, timeout_s):
            os.kill(pid, signal.SIGKILL)
        self.pid_file.unlink(missing_ok=True)
        return True


def entry_class(lib: Path, version: str) -> str:
    """The class that starts Neo4j `version`, as its server jar in `lib` declares it."""
    with zipfile.ZipFile(lib / f"neo4j-{version}.jar") as jar:
        lines = jar.read(ENTRY_POINT_SERVICE).decode("utf-8").splitlines()
    names = [line.strip() for line in lines if line.strip() and not line.startswith("#")]
    if not names:
        raise SetupError(f"the Neo4j {version} jar names no entry class")
    return names[0]


def java_needed(version: str) -> int:
    """The least Java major version for Neo4j `version` (or a Maven range, by its lower end):
    17 for 5.x, 21 for 2025.x and later."""
    major = re.search(r"\d+", version)
    return 17 if major is not None and int(major.group()) < 2025 else 21


def _require_java(version: str, java_home: Path | None) -> str:
    """The java of `java_home` when set (JAVA_HOME, as `bin/neo4j` picks it), else the one on
    PATH."""
    need = java_needed(version)
    java = str(java_home / "bin" / "java") if java_home else shutil.which("java")
    if java is None or not Path(java).exists():
        raise SetupError(f"Java {need} or newer is needed to run Neo4j {version}: install a "
                         f"JDK/JRE {need}+ (or set JAVA_HOME to one)")
    out = subprocess.run([java, "-version"], capture_output=True, text=True, check=False).stderr
    match = re.search(r'version "(\d+)', out)
    if match is None or int(match.group(1)) < need:
        raise SetupError(f"Java {need} or newer is needed to run Neo4j {version}; "
                         f"found: {out.splitlines()[:1]} ({java})")
    return java
