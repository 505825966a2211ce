"""Kind inference for notes written as `general`: labels, cues, and staying general when unsure."""

from __future__ import annotations

import pytest

from kg_brain.enrichment.llm.kinds import infer_kind


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Fix: retry the upload with a fresh token.", "fix"),
        ("Resolved by pinning urllib3 below 2 in the lockfile.", "fix"),
        ("The 502s went away after raising the proxy read timeout.", "fix"),
        ("Mistake: I pushed the migration before the code that reads the new column.", "mistake"),
        ("The importer crashed with UnicodeDecodeError on Latin-1 CSV files.", "mistake"),
        ("We accidentally ran the seed script against staging.", "mistake"),
        ("We decided to drop Python 3.10 support in the next release.", "decision"),
        ("Decision: feature flags live in the database, not in env vars.", "decision"),
        ("Always wrap outbound calls in a timeout.", "pattern"),
        ("Rule of thumb: one queue per tenant tier.", "pattern"),
        ("TODO: document the cache warm-up step in the runbook.", "open_thread"),
        ("Still need to decide which region hosts the nightly backups.", "open_thread"),
        ("Benchmarked msgpack against JSON: 3x smaller payloads.", "research"),
        ("According to the Redis docs, SCAN may return a key twice.", "research"),
        ("The repo is a Cargo workspace with three crates.", "project_context"),
        ("Our stack: Go, Postgres and NATS.", "project_context"),
    ],
)
def test_kind_is_inferred_from_labels_and_cues(text: str, kind: str) -> None:
    assert infer_kind(text) == kind


@pytest.mark.parametrize(
    "text",
    [
        "The staging database is refreshed every Sunday.",
        "Customer ids are prefixed with cus_ in the API.",
        "The metrics dashboard is only reachable from the office network.",
        "Shipping labels are printed by the warehouse team.",
    ],
)
def test_plain_statements_stay_general(text: str) -> None:
    assert infer_kind(text) == "general"


def test_a_fix_that_names_the_failure_is_a_fix() -> None:
    text = "The TimeoutError in the export job was fixed by streaming rows in batches."
    assert infer_kind(text) == "fix"


@pytest.mark.parametrize(
    "text",
    [
        "Pinned the protobuf runtime to 4.25; the gRPC import error is fixed.",
        "Gave each shard its own lock file and the lock timeouts stopped.",
        "Raised the memory request to 2Gi, no more OOMKilled restarts on the parser.",
        "The loader reads the feed as latin-1 now and parses it without the ValueError.",
        "Regenerated the lockfile; the Android build compiles again.",
        "Cached the tenant lookup per request; the 502s on the billing page stopped.",
        "Split the export into pages, so the nightly sync completes instead of timing out.",
        "Vacuum runs before the rollup now and the bloat warning no longer appears.",
    ],
)
def test_a_failure_said_to_be_over_reads_as_a_fix(text: str) -> None:
    assert infer_kind(text) == "fix"


def test_a_process_that_stopped_where_it_left_off_is_no_fix() -> None:
    assert infer_kind("The crawler keeps a checkpoint so a restart resumes where it stopped.") \
        == "general"
    # a habit that ended is no failure that ended
    assert infer_kind("Our Sunday walks to the harbour stopped when the twins were born.") \
        == "general"


def test_a_given_kind_is_never_overridden() -> None:
    assert infer_kind("Fix: retry the upload with a fresh token.", "decision") == "decision"
