"""Link typing on the confusions that made the graph noisy: a fix and the decision it carries
out, a mistake and its own fix, one sentence about two services, a restated fact, a changed value.
"""

from __future__ import annotations

from kg_brain.base.vocab import LinkType
from kg_brain.enrichment.llm.heuristic import HeuristicEnricher, make_title
from kg_brain.enrichment.llm.rules import restates, says_change
from kg_brain.enrichment.llm.types import Candidate, NoteDraft

ENRICHER = HeuristicEnricher(min_similarity=0.45)


def link(new: str, new_kind: str, old: str, old_kind: str, similarity: float
         ) -> LinkType | None:
    note = NoteDraft(title=make_title(new), content=new, note_kind=new_kind)
    cand = Candidate(zk_id="ZK-00000001", title=make_title(old), content=old,
                     note_kind=old_kind, similarity=similarity)
    links = ENRICHER.decide_links(note, [cand])
    return links[0].link_type if links else None


def test_a_fix_fixes_the_mistake_about_the_same_thing() -> None:
    assert link("Fix: the feed builder now streams listings to disk in chunks of 2,000, so the "
                "exporter no longer runs out of memory.", "general",
                "The listings exporter ran out of memory on feeds over 50k products.", "mistake",
                0.72) == LinkType.FIXES


def test_a_fix_never_fixes_a_mistake_about_another_service() -> None:
    assert link("Fixed the avatar processor's crashes by capping decoded images at 40 "
                "megapixels.", "fix", "The contract exporter crashed on scanned PDFs with "
                "embedded fonts.", "mistake", 0.7) is None


def test_a_fix_relates_to_the_decision_it_carries_out_and_never_contradicts_it() -> None:
    got = link("Fixed the cart bug where the app's discount was trusted: the cart endpoint "
               "no longer reads discounts from the request and recomputes them.", "general",
               "Decision: discounts are applied by the server alone; the app never sends a "
               "discount amount.", "decision", 0.7)
    assert got == LinkType.RELATES_TO


def test_a_mistake_recorded_after_its_fix_does_not_contradict_it() -> None:
    got = link("Customers got duplicate invoice emails when the mailer retried after an SMTP "
               "timeout.", "mistake", "Fixed duplicate invoice emails with a unique constraint "
               "on email_log (invoice_id, kind); the mailer no longer sends twice.", "fix", 0.75)
    assert got == LinkType.RELATES_TO


def test_the_same_sentence_about_another_service_is_not_linked() -> None:
    assert link("The search indexer's cron runs at 04:00 UTC.", "general",
                "The thumbnail worker's cron runs at 04:00 UTC.", "general",
                0.95) is None


def test_a_restated_fact_relates_and_does_not_supersede() -> None:
    assert link("Reminder: the sync agent retries S3 uploads 4 times.", "general",
                "The sync agent retries S3 uploads 4 times with backoff.", "general",
                0.93) == LinkType.RELATES_TO


def test_a_changed_value_supersedes() -> None:
    assert link("The metrics exporter now listens on port 9105.", "general",
                "The metrics exporter listens on port 9104.", "general",
                0.9) == LinkType.SUPERSEDES
    assert link("The docs site moved to Hugo 0.125 in the build image.", "general",
                "The docs site builds with Hugo 0.119 in the build image.", "general",
                0.8) == LinkType.SUPERSEDES


def test_a_switched_library_supersedes() -> None:
    assert link("Background jobs switched from Celery to Dramatiq.", "general",
                "Background jobs run on Celery with a Redis broker.", "decision",
                0.7) == LinkType.SUPERSEDES


def test_denying_what_the_other_asserts_contradicts() -> None:
    assert link("Stripe can deliver one webhook event more than once; the payment worker must "
                "deduplicate on event.id.", "general",
                "Stripe webhooks are delivered exactly once, so the payment worker needs no "
                "deduplication.", "general", 0.8) == LinkType.CONTRADICTS
    assert link("The tokio Mutex is not required in async code.", "general",
                "The tokio Mutex is required in async code.", "general",
                0.9) == LinkType.CONTRADICTS


def test_order_and_negation_words_alone_are_no_contradiction() -> None:
    assert link("Do not restart the search indexer during the weekly reindex.", "general",
                "The search indexer never drops documents; it only flags them hidden.",
                "general", 0.6) == LinkType.RELATES_TO
    assert link("The orders service must not send the confirmation email before the payment "
                "is confirmed.", "general", "Order confirmation emails are sent by the orders "
                "service once the payment succeeds.", "general", 0.85) == LinkType.RELATES_TO


def test_a_cause_names_the_candidate() -> None:
    assert link("Invoice pages time out under load because all pool connections are held by "
                "slow report queries.", "mistake", "The API database pool holds 10 "
                "connections.", "general", 0.55) == LinkType.CAUSED_BY


def test_a_step_of_an_enumerated_whole_is_part_of_it() -> None:
    assert link("Step 2 of the release checklist: tag the commit and push the tag.", "general",
                "The release checklist has four steps: freeze, tag, build, announce.",
                "pattern", 0.6) == LinkType.PART_OF


def test_a_measurement_supports_a_decision_about_the_same_thing() -> None:
    assert link("Measured: the Memcached layer cut search results p95 from 700 ms to 90 ms.",
                "research", "We decided to put search results behind Memcached.", "decision",
                0.65) == LinkType.SUPPORTS


def test_a_fuller_note_on_the_same_subject_extends_it() -> None:
    assert link("The image proxy caches resized thumbnails on local disk for 7 days and evicts "
                "the least recently used ones once the volume is 80% full.", "general",
                "The image proxy caches resized thumbnails.", "general",
                0.8) == LinkType.EXTENDS


def test_below_the_floor_nothing_is_linked() -> None:
    assert link("Lunch menus rotate weekly.", "general", "The metrics exporter listens on port "
                "9104.", "general", 0.1) is None


def test_notes_dated_on_other_days_do_not_supersede_each_other() -> None:
    assert link("Melanie (10:37 am on 27 June, 2023): the pottery class was great again.",
                "general", "Melanie (7:55 pm on 9 June, 2023): the pottery class was great.",
                "general", 0.9) != LinkType.SUPERSEDES
    assert link("The ledger cutover moved from 3 May to 10 May.", "general",
                "The ledger cutover is planned for 3 May.", "general",
                0.85) == LinkType.SUPERSEDES
    assert link("The warehouse feed loads the 2024-02-01 customs tariff edition now.",
                "general", "The customs tariff edition the warehouse feed loads is 2023-06-30.",
                "general", 0.86) == LinkType.SUPERSEDES


def test_now_in_a_note_written_on_another_day_does_not_move_its_date() -> None:
    """A note is "now" at its own date: only a date that is said to move makes one supersede."""
    assert link("Priya (4:05 pm on 2 March, 2024): the garden beds are planted now, tomatoes "
                "first.", "general",
                "Priya (9:12 am on 14 February, 2024): the garden beds need new soil before "
                "planting.", "general", 0.8) != LinkType.SUPERSEDES
    assert link("The garden tour was postponed from 2 March to 9 March.", "general",
                "The garden tour is on 2 March.", "general", 0.85) == LinkType.SUPERSEDES


def test_another_value_without_a_word_of_change_only_relates() -> None:
    """Two apps, two models or two environments state one slot differently as often as one
    thing changes: without "now", "moved", "bumped" ... the link is the weaker RELATES_TO."""
    assert link("The nightly report job runs 4 workers.", "general",
                "The nightly report job runs 12 workers.", "general", 0.9) == LinkType.RELATES_TO
    assert link("The nightly report job now runs 4 workers.", "general",
                "The nightly report job runs 12 workers.", "general", 0.9) == LinkType.SUPERSEDES


def test_more_detail_with_the_old_value_among_it_is_no_change() -> None:
    assert link("The image worker runs with --threads=6 and --queue-limit=500, reading from the "
                "thumbnails and avatars queues.", "general", "The image worker runs with 6 "
                "threads.", "general", 0.75) != LinkType.SUPERSEDES


def test_one_setting_in_two_environments_is_neither_superseded_nor_contradicted() -> None:
    for new, old in (("Staging now keeps request logs for 3 days.",
                      "Production keeps request logs for 30 days."),
                     ("The dev cluster was upgraded to 3 brokers.",
                      "The production cluster runs 9 brokers.")):
        assert link(new, "general", old, "general", 0.9) not in (LinkType.SUPERSEDES,
                                                                 LinkType.CONTRADICTS)


def test_a_restatement_neither_announces_a_change_nor_denies_the_other() -> None:
    assert restates("Caching is on for the search API.", "The search API has caching on.")
    assert not restates("Caching is not on for the search API.", "The search API has caching on.")
    assert not restates("The search API now has caching on.", "The search API has caching off.")


# Chat turns and notes on different things: a typed link needs the same subject on both sides.

def test_a_move_in_life_is_not_a_moved_date() -> None:
    got = link("Priya (6:10 pm on 4 March, 2024): My cousins helped a lot when I moved from "
               "Lisbon to Leeds, they still call every weekend.", "general",
               "Priya (9:02 am on 11 February, 2024): Morning! How was the climbing gym "
               "yesterday?", "general", 0.62)
    assert got not in (LinkType.SUPERSEDES, LinkType.CONTRADICTS)


def test_a_meeting_moved_to_another_date_supersedes_the_old_date() -> None:
    assert link("The quarterly budget review moved to 14 March 2025 because finance is "
                "closing the books.", "general",
                "The quarterly budget review is on 7 March 2025 in room 4.", "general",
                0.83) == LinkType.SUPERSEDES


def test_from_it_to_is_not_a_change_of_date() -> None:
    got = link("Tomas (3:15 pm on 2 May, 2024): Lovely! What did you take from it to your "
               "own garden?", "general",
               "Tomas (8:40 pm on 19 April, 2024): Lovely photos, enjoy the garden show!",
               "general", 0.7)
    assert got not in (LinkType.SUPERSEDES, LinkType.CONTRADICTS)


def test_cant_wait_is_not_a_denial() -> None:
    got = link("Can't wait for the pottery class on Thursday, I booked two seats.", "general",
               "We signed up for the pottery class on Thursday evening.", "general", 0.78)
    assert got not in (LinkType.SUPERSEDES, LinkType.CONTRADICTS)


def test_never_forget_is_not_a_denial_of_an_always() -> None:
    got = link("We always bring the dog to the lake cabin in August.", "general",
               "The lake cabin trip was wonderful, I'll never forget the dog swimming out "
               "after the canoe.", "general", 0.7)
    assert got != LinkType.CONTRADICTS


def test_always_and_never_about_other_things_do_not_contradict() -> None:
    got = link("I always read a chapter before bed; the sci-fi series is great.", "general",
               "Never tried night hiking, it sounds scary but the stars must be great.",
               "general", 0.62)
    assert got != LinkType.CONTRADICTS


def test_always_and_never_about_one_thing_contradict() -> None:
    assert link("The nightly export job never retries failed uploads to the archive bucket.",
                "general",
                "The nightly export job always retries failed uploads to the archive bucket "
                "three times.", "general", 0.9) == LinkType.CONTRADICTS


def test_a_negation_ends_where_a_second_predicate_begins() -> None:
    got = link("Felt so relieved at the meetup: I'm not alone and have a wonderful support "
               "group around me.", "general",
               "A support group like yours is wonderful for anyone starting over.", "general",
               0.66)
    assert got != LinkType.CONTRADICTS


def test_a_plain_denial_of_the_same_statement_still_contradicts() -> None:
    assert link("The invoice webhook does not verify the signature header of incoming "
                "events.", "general",
                "The invoice webhook verifies the signature header of incoming events.",
                "general", 0.9) == LinkType.CONTRADICTS


def test_a_value_with_its_old_one_in_parentheses_supersedes() -> None:
    assert link("- session cache TTL: 10 minutes (was 5 minutes)", "general",
                "- session cache TTL: 5 minutes, per key", "general", 0.9) == LinkType.SUPERSEDES


def test_a_past_tense_story_with_another_number_supersedes_nothing() -> None:
    got = link("Tom (4 May): when I was 12 my uncle gave me a bike, and I rode it to school "
               "every day.", "general",
               "Tom (1 May): I bought a bike for my son on the 28th, he rides it every day.",
               "general", 0.6)
    assert got != LinkType.SUPERSEDES


def test_a_note_naming_the_value_it_replaces_supersedes_the_note_stating_it() -> None:
    assert link("Thumbnails are now resized with libvips instead of ImageMagick.", "general",
                "The thumbnail worker resizes uploads with ImageMagick's convert.", "general",
                0.74) == LinkType.SUPERSEDES
    assert link("- nightly export format: parquet (was csv)", "general",
                "- nightly export format: csv, gzipped", "general", 0.9) == LinkType.SUPERSEDES
    assert link("The search cluster moved off Solr to OpenSearch 2.11 last sprint.", "general",
                "Product search runs on Solr 8 behind the catalog API.", "general",
                0.66) == LinkType.SUPERSEDES


def test_a_version_bumped_to_another_number_supersedes_the_old_version() -> None:
    assert link("Python for the scheduler bumped to 3.12 in the Dockerfile.", "general",
                "The scheduler image runs Python 3.10.", "general", 0.7) == LinkType.SUPERSEDES


def test_naming_a_value_the_old_note_never_states_supersedes_nothing() -> None:
    assert link("The search cluster moved off Solr to OpenSearch 2.11 last sprint.", "general",
                "Product search answers within 80 ms at the 95th percentile.", "general",
                0.62) != LinkType.SUPERSEDES


def test_a_change_that_makes_a_failure_go_away_does_not_supersede_it() -> None:
    assert link("Switched the upload client from requests to httpx; the hangs are gone.",
                "general", "Uploads to the archive hang forever with requests when the proxy "
                "resets the connection.", "mistake", 0.7) != LinkType.SUPERSEDES


def test_a_choice_instead_of_another_without_a_change_is_no_supersession() -> None:
    assert link("We encode events as Avro instead of JSON to keep the schema registry "
                "authoritative.", "decision",
                "Events on the bus are JSON documents validated by the consumers.", "general",
                0.7) != LinkType.SUPERSEDES


def test_a_value_down_to_or_up_from_another_supersedes_the_note_stating_it() -> None:
    assert link("The thumbnail worker's prefetch count is down to 8: at 32 it starved the "
                "avatar queue.", "general",
                "The thumbnail worker's prefetch count is 32 (worker/settings.py) so a burst "
                "drains quickly.", "general", 0.8) == LinkType.SUPERSEDES
    assert link("The ingest consumer's session timeout is 45 s, up from 30 s, after the rebalance "
                "storms.", "general",
                "The ingest consumer's session timeout is 30 s with a 3 s heartbeat.",
                "general", 0.7) == LinkType.SUPERSEDES


def test_up_to_a_limit_is_no_change() -> None:
    assert link("The export job retries failed uploads up to 4 times, 2 s apart, and only "
                "for idempotent calls.", "general",
                "The export job retries failed uploads.", "general",
                0.8) != LinkType.SUPERSEDES


def test_a_change_naming_the_old_version_supersedes_whatever_else_the_notes_name() -> None:
    # the files, images and tools around a setting change with it: the old note names some the
    # new one does not, and the pair reads less alike than one subject usually does
    assert link("Rust toolchain is 1.79.0 now (was 1.75.0): rust-toolchain.toml and the CI "
                "cache key changed together.", "general",
                "rust-toolchain.toml pins 1.75.0; the builder image rust:1.75-slim and "
                "cargo-deny 0.14 in .github/workflows/ci.yml have to match it.", "general",
                0.55) == LinkType.SUPERSEDES
    assert link("Metrics retention is 45 days now, up from 15 days, so a quarter's dashboards "
                "keep working.", "general",
                "Prometheus on mon-01 keeps 15 days of metrics (--storage.tsdb.retention.time "
                "in roles/prometheus/defaults/main.yml).", "general",
                0.58) == LinkType.SUPERSEDES


def test_a_named_old_value_of_another_service_or_environment_supersedes_nothing() -> None:
    assert link("The billing-api request timeout is 20 s now (was 10 s).", "general",
                "The search-api request timeout is 10 s behind the gateway.", "general",
                0.8) != LinkType.SUPERSEDES
    assert link("Staging now keeps request logs for 14 days (was 7 days).", "general",
                "Production keeps request logs for 7 days.", "general",
                0.85) != LinkType.SUPERSEDES


def test_a_bare_old_number_overrides_no_other_subject() -> None:
    assert link("The lint job runs 4 shards now (was 2).", "general",
                "The e2e suite on ci-runner-2 runs in 2 shards with Playwright 1.44.",
                "general", 0.5) != LinkType.SUPERSEDES


def test_a_version_or_port_named_as_replaced_is_read_whole() -> None:
    old = ("The ingest gateway listens on port 8101 (config/gateway.toml); the load balancer "
           "health check hits /healthz there.")
    assert link("The ingest gateway now uses 8102, no longer 8101.", "general", old, "general",
                0.7) == LinkType.SUPERSEDES
    assert link("Upgraded Node from 18.19 to 20.11.", "general",
                "CI runs on Node 18.19 (.nvmrc and the setup-node step in "
                ".github/workflows/ci.yml).", "general", 0.7) == LinkType.SUPERSEDES
    # a version named as replaced that the old note does not state: no supersession
    assert link("Upgraded Node from 16.20 to 20.11.", "general",
                "CI runs on Node 18.19 (.nvmrc and the setup-node step in "
                ".github/workflows/ci.yml).", "general", 0.7) != LinkType.SUPERSEDES


def test_an_arrow_between_values_is_a_change_and_a_return_type_is_not() -> None:
    old = "The report worker's HTTP timeout is 30 s (REPORT_TIMEOUT in settings/base.py)."
    assert link("REPORT_TIMEOUT: 30 s → 60 s for the month-end reports.", "general", old,
                "general", 0.68) == LinkType.SUPERSEDES
    assert link("REPORT_TIMEOUT 30 -> 45 in settings/base.py.", "general", old, "general",
                0.68) == LinkType.SUPERSEDES
    assert restates("report_timeout() -> int reads REPORT_TIMEOUT from settings/base.py.",
                    "REPORT_TIMEOUT is read from settings/base.py by report_timeout().")




def test_a_bare_old_number_the_old_note_states_with_the_new_values_unit_supersedes() -> None:
    # "up from 7" names 7 days: the old note states it with the unit the new value carries and
    # both name the setting, whatever else each names, below the one-subject similarity
    assert link("SESSION_MAX_AGE is 14 days now, up from 7: the support team asked for fewer "
                "logins.", "general", "Session cookies last 7 days (SESSION_MAX_AGE in "
                "settings/auth.py, read by django-allauth) and are refreshed on each visit.",
                "general", 0.55) == LinkType.SUPERSEDES
    # the old note states the number as a count of something else, or with the unit but of
    # another subject (no entity in common): no supersession
    assert link("The export keeps 30 days of files now (was 14).", "general",
                "The exporter runs 14 workers on batch-2 and writes to the archive bucket.",
                "general", 0.5) is None
    assert link("The canary waits 72 hours now instead of 48 before going to everyone.",
                "general", "Release 4.11 reached the beta track with 30 testers; crash-free "
                "sessions 97.2% after 48 hours.", "general", 0.55) != LinkType.SUPERSEDES

def test_a_version_in_parentheses_after_from_is_the_replaced_one() -> None:
    assert link("Terraform 1.9.8 across the roots now (from 1.9.5), with tflint 0.53 in CI.",
                "general", "Every root's versions.tf says required_version 1.9.5, and tfenv "
                "reads .terraform-version on the runners.", "general",
                0.5) == LinkType.SUPERSEDES


def test_another_number_supersedes_only_where_both_notes_name_what_it_counts() -> None:
    # both name Kafka and the ingest worker, and both state numbers, but of other settings
    assert link("Raised the ingest worker's flush_delay to 45 and max_batch to 15 (poll_wait "
                "stays 10), so one slow Kafka write no longer stalls the loop.", "general",
                "Kafka 3.6 on kafka-a1..a3: brokers on 9092, controllers on 9093, segment "
                "count 10000, 4 GiB of page cache; the ingest worker reads through the kafka "
                "client.", "general", 0.56) != LinkType.SUPERSEDES
    # the changed number beside the name the old note gives its number
    assert link("The thumbnail queue's concurrency is 12 now: uploads backed up at launch.",
                "general", "Worker concurrency per queue: thumbnails 4, exports 2, webhooks 1.",
                "general", 0.7) == LinkType.SUPERSEDES


def test_a_file_named_by_a_shorter_path_is_the_same_file() -> None:
    assert link("The repository went public, so deploy.yml no longer sets "
                "NPM_CONFIG_DRY_RUN=true: the npm packages are published again.", "general",
                "Releases: every PR carries a changeset; .github/workflows/deploy.yml keeps a "
                "release PR open, and merging it publishes the npm packages. Secrets: NPM_TOKEN.",
                "general", 0.6) != LinkType.SUPERSEDES


def test_a_value_of_another_instance_of_one_sort_supersedes_nothing() -> None:
    # one family of names, another member in the clause stating the value on each side
    assert link("nginx on web-edge-04 is now 1.26.2 (was 1.24.0).", "general",
                "nginx on web-batch-02 is now 1.24.0 (was 1.22.1).", "general",
                0.9) == LinkType.RELATES_TO
    assert link("The upload timeout of web-edge-04 is 20 s now.", "general",
                "The upload timeout of web-batch-02 is 120 s now.", "general",
                0.9) == LinkType.RELATES_TO


def test_a_value_of_the_same_named_instance_still_supersedes() -> None:
    assert link("nginx on web-edge-04 is now 1.26.2 (was 1.24.0).", "general",
                "nginx on web-edge-04 runs 1.24.0 with the stock config.", "general",
                0.85) == LinkType.SUPERSEDES
    # a zone is a value: the replica moving zones is one replica changing
    assert link("The read replica now runs in eu-central-1b (was eu-central-1a).", "general",
                "The read replica runs in eu-central-1a on a db.r6g.large.", "general",
                0.8) == LinkType.SUPERSEDES


def test_a_choice_changes_where_one_sentence_names_the_old_and_the_new_choice() -> None:
    assert link("The admin CLI was rewritten on Typer; Click is only a transitive dependency "
                "now.", "general", "The admin CLI is built with Click.", "general",
                0.65) == LinkType.SUPERSEDES
    # the new tool comes in a sentence that says nothing of the old one
    assert link("Redis keeps the rendered PDFs for a day. The reports worker now posts its "
                "errors to Sentry.", "general", "The reports worker keeps rendered PDFs in "
                "Redis, then pulls them with boto3.", "general", 0.65) == LinkType.RELATES_TO
    # a part of the system named by a phrase is no choice
    assert link("The export worker now hands finished files to the upload service; Postgres "
                "stays the source.", "general", "The export worker reads orders from Postgres "
                "every night.", "general", 0.65) == LinkType.RELATES_TO


def test_it_was_in_parentheses_names_the_replaced_value() -> None:
    assert link("MAX_UPLOAD_MB is 50 from the next release (it was 20): designers attach raw "
                "PSD files.", "general", "Uploads are capped by MAX_UPLOAD_MB = 20 in "
                "config/limits.py.", "general", 0.65) == LinkType.SUPERSEDES


def test_a_bare_old_number_stated_with_the_same_word_supersedes_past_other_hosts() -> None:
    # "version 13" / "version 14": the word saying what the number is, beside hosts and files
    # only one note names
    assert link("The audit database on pg-audit-02 is at version 14 now (was 13): migration "
                "0014 adds the retention table.", "general",
                "The audit database is at version 13; db-backup-01 dumps it nightly to "
                "s3://audit-dumps.", "general", 0.56) == LinkType.SUPERSEDES
    # a name of its own beside the number needs no other entity in common
    assert link("Borg keep-daily is now 14 (was 7) on the backup host, after the March restore "
                "drill.", "general", "Nightly archive prune on nas-01: keep-daily=7, "
                "keep-weekly=4, compression zstd level 3.", "general",
                0.52) == LinkType.SUPERSEDES


def test_a_bare_old_number_of_another_instance_or_another_count_supersedes_nothing() -> None:
    assert link("render-gpu-a runs 6 worker threads now (was 4).", "general",
                "render-gpu-b runs 4 worker threads at night.", "general",
                0.85) != LinkType.SUPERSEDES
    assert link("Upload retries in the billing client are now 6 (was 3).", "general",
                "Upload retries in the search client are now 3 (was 5).", "general",
                0.85) != LinkType.SUPERSEDES
    assert link("The thumbnailer keeps 4 replicas now (was 2): launch traffic.", "general",
                "The importer on batch-01 retries 2 times, then writes to the dead-letter "
                "queue.", "general", 0.5) != LinkType.SUPERSEDES


def test_a_service_named_in_another_clause_than_the_value_is_no_other_owner() -> None:
    old = ("Scheduler settings: lease_ttl 20, renew_every 5; jobs are stored in Postgres and "
           "the agents talk to Nomad on 4646.")
    assert link("Raised scheduler's lease_ttl to 40 with the admin CLI, so one slow Consul "
                "write no longer drops the leader.", "general", old, "general",
                0.55) == LinkType.SUPERSEDES
    # a service named in the clause stating the value owns it
    assert link("Consul's lease_ttl is 40 now (was 20).", "general", old, "general",
                0.55) != LinkType.SUPERSEDES


def test_a_named_old_value_the_old_note_does_not_state_is_another_things_value() -> None:
    # the new note says what it replaced (200ms, 300); the old note states another value of the
    # same kind and names another thing: it is not the note replaced
    assert link("ingest consumer tuning: MaxBatchWait is 80ms now (was 200ms), MaxRecords 800.",
                "general", "billing consumes invoices.v2 as group billing-v2: MaxBatchWait "
                "640ms, commits after the ledger transaction.", "general",
                0.6) != LinkType.SUPERSEDES
    # a bare old number takes the unit of the value after it: 90 (days) is not stated
    assert link("Session log retention was cut from 90 to 30 days to stay under the disk quota.",
                "general", "Retention of audit exports went from 400 to 365 days to save disk; "
                "Tomas checked that no report reads further back.", "general",
                0.65) != LinkType.SUPERSEDES
    # both name one person; the old note's value is of another thing all the same
    assert link("Polling of tank pressure changed from every 120 s to every 30 s after Ines "
                "checked the gateway load.", "general", "Polling of pump speed changed from "
                "every 300 s to every 600 s after Ines checked the gateway load.", "general",
                0.7) != LinkType.SUPERSEDES
    # the note stating the named old value is still replaced
    assert link("Session log retention was cut from 90 to 30 days to stay under the disk quota.",
                "general", "Session logs are kept for 90 days, then deleted by the retention "
                "job.", "general", 0.65) == LinkType.SUPERSEDES


def test_a_setting_the_old_note_states_alone_at_another_value_is_still_replaced() -> None:
    # the old note names nothing the new one does not: the same setting at a value no note
    # between them recorded
    assert link("auto_vacuum on ORDERS_DB lowered to 30 s (was 90 s): the nightly load no "
                "longer bloats the table.", "general",
                "auto_vacuum on ORDERS_DB is now 240 s (was 600 s).", "general",
                0.7) == LinkType.SUPERSEDES


def test_a_named_old_value_needs_its_number_in_the_old_note() -> None:
    assert link("billing-api moved to the python:3.12-slim base image (was python:3.11.4-slim); "
                "its requirements were rebuilt.", "general",
                "Python 3.10.2 is pinned in .python-version for every service.", "general",
                0.6) != LinkType.SUPERSEDES


def test_a_change_that_ends_a_failure_fixes_it_and_does_not_supersede_it() -> None:
    # the failure's numbers are no setting's value; the change is its remedy
    assert link("Moved the hourly reindex off the primary onto the replica; checkout p99 stays "
                "under 300 ms.", "general", "Checkout p99 climbs to 4 seconds every hour "
                "while the reindex runs on the primary.", "mistake",
                0.75) != LinkType.SUPERSEDES
    assert link("Switched the thumbnailer from ImageMagick to libvips; the Debian slim image "
                "builds again.", "general", "The thumbnailer's Docker build on Debian "
                "slim fails: ImageMagick headers are missing.", "mistake",
                0.7) == LinkType.FIXES


def test_a_value_of_another_owner_is_not_a_changed_value() -> None:
    # two owners named in the possessive, neither named by the other note
    assert link("The uploader's chunk size was raised to 16 MB.", "general",
                "The indexer's chunk size is 8 MB.", "general", 0.8) != LinkType.SUPERSEDES
    # one owner's head named with another word before it ("APAC pool" / "EMEA pool")
    assert link("Grew the APAC pool's node count to 9.", "general",
                "The EMEA pool runs 6 nodes.", "general", 0.75) != LinkType.SUPERSEDES
    # one owner both notes name is the same setting changed
    assert link("The indexer's chunk size was raised to 16 MB.", "general",
                "The indexer's chunk size is 8 MB.", "general", 0.85) == LinkType.SUPERSEDES


def test_more_words_of_change_announce_a_new_value() -> None:
    assert link("Scaled the render farm to 12 workers.", "general",
                "The render farm runs 7 workers.", "general", 0.8) == LinkType.SUPERSEDES
    assert link("The CDN cache lifetime dropped to 120s.", "general",
                "The CDN cache lifetime is 900s.", "general", 0.85) == LinkType.SUPERSEDES
    # a state "is set to" says no change: another value is only related
    assert link("The CDN cache lifetime is set to 120s.", "general",
                "The CDN cache lifetime is 900s.", "general", 0.85) == LinkType.RELATES_TO


def test_a_moved_owner_and_a_value_no_longer_used_are_replaced() -> None:
    assert link("Billing alerts were handed from the payments squad to the finance tooling "
                "team.", "general", "The payments squad owns the billing alerts.", "general",
                0.8) == LinkType.SUPERSEDES
    assert link("Audit logs no longer go to /var/log/audit; the agent ships them to Loki.",
                "general", "The agent writes audit logs to /var/log/audit on each node.",
                "general", 0.7) == LinkType.SUPERSEDES


def test_a_number_counting_the_same_thing_is_the_value_changed() -> None:
    assert link("The orders-events topic was raised to 24 partitions for the new consumers.",
                "general", "orders-events has 12 partitions.", "general",
                0.7) == LinkType.SUPERSEDES
    # a unit counts nothing: two sizes of two things stay apart
    assert link("Bumped the upload limit to 50 MB.", "general",
                "Thumbnails are capped at 2 MB.", "general", 0.6) != LinkType.SUPERSEDES
    # numbers counting different nouns are of different things
    assert link("The ledger consumers now run as 6 pods after the rebalance.", "general",
                "The ledger topic has 24 partitions.", "general", 0.7) != LinkType.SUPERSEDES


def test_a_key_set_to_another_value_supersedes_it() -> None:
    assert link("wal_level set to logical for the CDC connector.", "general",
                "wal_level is replica on the primary.", "general", 0.75) == LinkType.SUPERSEDES


def test_a_code_comment_naming_the_old_value_announces_the_change() -> None:
    assert link("queue.prefetch_count = 64  # was 16, the consumers idled", "general",
                "The billing consumer sets queue.prefetch_count to 16.", "general",
                0.8) == LinkType.SUPERSEDES
    assert link("max_open_files: 4096 // previously 1024", "general",
                "The indexer runs with max_open_files 1024.", "general",
                0.8) == LinkType.SUPERSEDES


def test_what_a_note_stopped_using_is_the_value_it_replaced() -> None:
    assert link("The thumbnails service stopped using ImageMagick; resizing is done by libvips.",
                "general", "The thumbnails service resizes images with ImageMagick.", "general",
                0.75) == LinkType.SUPERSEDES


def test_updated_announces_a_change_but_an_event_named_updated_does_not() -> None:
    assert says_change("- node 22\n- pnpm 9\n(.nvmrc updated)")
    assert not says_change("The handler listens for invoice.updated and charge.updated events.")
