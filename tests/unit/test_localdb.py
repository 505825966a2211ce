"""Local provisioning: the generated config, the messages when Java or Maven are missing, and the
Java the 2026 line's test tier finds."""

from __future__ import annotations

import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from kg_brain.base.errors import SetupError
from kg_brain.base.settings import load_settings
from kg_brain.store.localdb import LocalNeo4j, private_server
from kg_brain.store.localdb.server import ENTRY_POINT_SERVICE, entry_class, java_needed


def _conf(home: Path) -> dict[str, str]:
    server = LocalNeo4j(home=home, bolt_port=17687, http_port=17474, heap="512m", pagecache="128m")
    text = server.write_conf().read_text(encoding="utf-8")
    return dict(line.split("=", 1) for line in text.splitlines() if line)


def test_config_listens_on_loopback_only(tmp_path: Path) -> None:
    conf = _conf(tmp_path)
    assert conf["server.default_listen_address"] == "127.0.0.1"
    assert conf["server.bolt.listen_address"] == "127.0.0.1:17687"
    assert conf["server.http.listen_address"] == "127.0.0.1:17474"


def test_config_sizes_memory_and_turns_usage_reporting_off(tmp_path: Path) -> None:
    conf = _conf(tmp_path)
    assert conf["server.memory.heap.max_size"] == "512m"
    assert conf["server.memory.pagecache.size"] == "128m"
    assert conf["dbms.usage_report.enabled"] == "false"
    assert conf["server.directories.data"] == str(tmp_path / "data")


def test_missing_java_is_one_clear_sentence(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    server = LocalNeo4j(home=tmp_path, cache_dir=tmp_path / "cache")
    with pytest.raises(SetupError, match="Java 17 or newer is needed"):
        server.ensure_jars()


def test_missing_maven_is_one_clear_sentence(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    java = shutil.which("java")
    assert java is not None, "these tests need the Java that runs Neo4j"
    (bin_dir / "java").symlink_to(Path(java).resolve())
    monkeypatch.setenv("PATH", str(bin_dir))
    server = LocalNeo4j(home=tmp_path, cache_dir=tmp_path / "cache")
    with pytest.raises(SetupError, match="Maven is needed"):
        server.ensure_jars()


def _fake_java(home: Path, major: int) -> Path:
    java = home / "bin" / "java"
    java.parent.mkdir(parents=True)
    java.write_text(f'#!/bin/sh\necho \'openjdk version "{major}.0.1"\' >&2\n', encoding="utf-8")
    java.chmod(0o755)
    return java


def test_a_calendar_release_asks_for_java_21(tmp_path: Path) -> None:
    _fake_java(tmp_path / "jdk17", 17)
    server = LocalNeo4j(home=tmp_path, cache_dir=tmp_path / "cache",
                        version_range="[2026.01.0,2027.0.0)", java_home=tmp_path / "jdk17")
    with pytest.raises(SetupError, match="Java 21 or newer is needed"):
        server.ensure_jars()
    assert (java_needed("5.26.30"), java_needed("2026.08.1")) == (17, 21)


def test_java_home_wins_over_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_java(tmp_path / "jdk25", 25)
    monkeypatch.setenv("PATH", str(tmp_path))
    server = LocalNeo4j(home=tmp_path, cache_dir=tmp_path / "cache",
                        version_range="[2026.01.0,2027.0.0)", java_home=tmp_path / "jdk25")
    with pytest.raises(SetupError, match="Maven is needed"):  # Java passed
        server.ensure_jars()


def _java_home_script(need: int, java_home: Path) -> subprocess.CompletedProcess[str]:
    script = Path(__file__).resolve().parents[2] / "scripts" / "java-home.sh"
    return subprocess.run([str(script), str(need)], capture_output=True, text=True, check=False,
                          env={"PATH": "/usr/bin:/bin", "JAVA_HOME": str(java_home)})


def test_the_2026_tier_takes_java_home_when_new_enough(tmp_path: Path) -> None:
    _fake_java(tmp_path / "jdk30", 30)
    found = _java_home_script(30, tmp_path / "jdk30")
    assert (found.returncode, found.stdout.strip()) == (0, str(tmp_path / "jdk30"))


def test_the_2026_tier_without_a_new_enough_java_fails_naming_what_it_found(
        tmp_path: Path) -> None:
    _fake_java(tmp_path / "jdk22", 22)
    found = _java_home_script(99, tmp_path / "jdk22")
    assert found.returncode == 1 and found.stdout == ""
    assert "no Java 99 or newer" in found.stderr and f"{tmp_path / 'jdk22'} (22)" in found.stderr


def test_a_private_server_runs_the_configured_line_and_java(tmp_path: Path) -> None:
    settings = load_settings(_env_file=None, neo4j_version="[2026.01.0,2027.0.0)",
                             java_home=tmp_path / "jdk25", kg_brain_cache_dir=tmp_path / "cache")
    server = private_server(tmp_path / "home", settings, heap="2g", pagecache="1g")
    assert (server.version_range, server.java_home) == ("[2026.01.0,2027.0.0)", tmp_path / "jdk25")
    assert server.lib_dir.is_relative_to(tmp_path / "cache")
    assert server.bolt_port not in (0, 7687) and server.http_port not in (0, 7474)


@pytest.mark.parametrize(("version", "declared"), [
    ("5.26.30", "org.neo4j.server.CommunityEntryPoint"),
    ("2026.08.1", "# a comment\norg.neo4j.server.Neo4jCommunity\n"),
])
def test_the_entry_class_is_the_one_the_release_declares(tmp_path: Path, version: str,
                                                         declared: str) -> None:
    with zipfile.ZipFile(tmp_path / f"neo4j-{version}.jar", "w") as jar:
        jar.writestr(ENTRY_POINT_SERVICE, declared)
    assert entry_class(tmp_path, version) == declared.splitlines()[-1].strip()


def test_generated_password_is_private_and_stable(tmp_path: Path) -> None:
    server = LocalNeo4j(home=tmp_path)
    first = server.connection().password
    assert first == server.connection().password
    assert (tmp_path / "conf" / "kg-brain-password").stat().st_mode & 0o077 == 0


def test_config_opens_the_browser_with_the_guide_and_style(tmp_path: Path) -> None:
    server = LocalNeo4j(home=tmp_path, bolt_port=17687, http_port=17474, browser_port=18766)
    text = server.write_conf().read_text(encoding="utf-8")
    conf = dict(line.split("=", 1) for line in text.splitlines() if line)
    assert conf["browser.post_connect_cmd"] == (
        "style http://127.0.0.1:18766/kg-brain.grass;guide http://127.0.0.1:18766/guide.html")
    assert "127.0.0.1" in conf["browser.remote_content_hostname_whitelist"].split(",")
    assert conf["client.allow_telemetry"] == "false"


def test_config_without_a_content_port_leaves_the_browser_as_shipped(tmp_path: Path) -> None:
    conf = _conf(tmp_path)
    assert not any(key.startswith("browser.") for key in conf)
