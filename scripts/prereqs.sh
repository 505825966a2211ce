#!/bin/sh
# What `make test` needs beyond Python packages, checked in its first seconds: each missing tool is
# named with the Debian package that brings it, and the run stops before installing anything.
#   python3 >= 3.11 with venv   the server and the suite
#   java >= 17, mvn             the local Neo4j the suite provisions (Maven Central)
#   npm                         the pinned OpenCode the end-to-end tests drive
#   chromium, chromedriver      the Browser tests (the system's headless Chromium)
# Usage: scripts/prereqs.sh [--packages] [PYTHON]; --packages prints the missing Debian packages
# (for an installer such as .ci/run) instead of failing.
list=false
if [ "${1:-}" = --packages ]; then list=true; shift; fi
py=${1:-python3}
missing=""
need() {
  missing="$missing $1"
  $list || echo "missing: $2" >&2
}

if ! "$py" -c 'import sys, venv; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  need "python3 python3-venv" "$py 3.11 or newer with the venv module"
fi
if ! command -v java >/dev/null; then
  need openjdk-17-jre-headless "java (17 or newer)"
elif ! java -version 2>&1 | head -n 1 | grep -Eq '"(1[7-9]|[2-9][0-9])[."]'; then
  need openjdk-17-jre-headless "java 17 or newer (found: $(java -version 2>&1 | head -n 1))"
fi
command -v mvn >/dev/null || need maven "mvn (Maven)"
command -v npm >/dev/null || need "nodejs npm" "npm"
command -v chromium >/dev/null || need chromium "chromium"
command -v chromedriver >/dev/null || need chromium-driver "chromedriver"

if $list; then
  echo $missing
elif [ -n "$missing" ]; then
  echo "install them with: sudo apt-get install -y$missing" >&2
  exit 1
fi
