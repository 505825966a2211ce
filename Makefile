# Two commands on a fresh machine: `make run` (MCP server over HTTP with a local Neo4j) and `make test`.
# The inner loop is `make check`: lint, types and the unit tier (no Neo4j, no npm), in under a minute.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: install prereqs opencode run check lint test test-unit test-integration test-mcp test-e2e \
	test-routing test-neo4j-2026 neo4j-stop

# `make run` needs the default install only (no torch); the tests add the extras, torch included.
$(BIN)/kg-brain: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e .
	touch $@

$(VENV)/.extras: $(BIN)/kg-brain
	$(BIN)/pip install -q -e '.[test,bench,torch]'
	touch $@

install: $(VENV)/.extras

# The pinned OpenCode (npm `opencode-ai`) the end-to-end tests drive, into ~/.cache/kg-brain.
opencode: install
	$(BIN)/python -m tests.e2e.opencode

run: $(BIN)/kg-brain
	$(BIN)/kg-brain neo4j start
	$(BIN)/kg-brain serve --http

# Java, Maven, npm, Chromium and chromedriver: named with their Debian packages when missing.
prereqs:
	scripts/prereqs.sh $(PY)

lint: install
	$(BIN)/ruff check .
	$(BIN)/mypy

check: lint
	$(BIN)/pytest -q tests/unit

# PYTEST_ARGS narrows a run: .ci/run passes -m "not unit" after `make check` ran that tier.
# TEST_WORKERS processes share the run (pytest-xdist): one Neo4j, provisioned once, serves them
# all, and a module's tests stay in one worker so its fixtures are set up once (tests/conftest.py).
TEST_WORKERS ?= 2
test: prereqs install opencode
	$(BIN)/pytest -q -n $(TEST_WORKERS) --dist loadfile $(PYTEST_ARGS)

# One tier at a time (each is also a marker: `pytest -m "not e2e"`).
test-unit: install
	$(BIN)/pytest -q tests/unit

test-integration test-mcp: install
	$(BIN)/pytest -q tests/$(@:test-%=%)

test-e2e: prereqs install opencode
	$(BIN)/pytest -q tests/e2e

# The tests marked `routing` again through the routing driver (neo4j://), as against a cluster
# or Aura: on one server only the routing-table step differs from bolt:// (read transactions
# refuse writes on both), so it runs one test of each path that step touches, not every test.
test-routing: install
	NEO4J_TEST_SCHEME=neo4j $(BIN)/pytest -q -m routing tests/integration tests/mcp

# The Neo4j-backed tiers again on Neo4j's 2026 line: a local server of that line the run provisions
# itself (a temporary home on free ports, stopped at the end, never NEO4J_TEST_URI's or Docker's),
# run by a Java 21+ of this machine (scripts/java-home.sh; none fails the tier, naming what it found).
NEO4J_2026 := [2026.01.0,2027.0.0)
test-neo4j-2026: prereqs install
	java_home=$$(scripts/java-home.sh 21) && env -u NEO4J_TEST_URI JAVA_HOME="$$java_home" \
		NEO4J_VERSION='$(NEO4J_2026)' $(BIN)/pytest -q -n $(TEST_WORKERS) --dist loadfile \
		tests/integration tests/mcp

neo4j-stop:
	$(BIN)/kg-brain neo4j stop
