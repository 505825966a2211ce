"""What a search sends the full-text index and the statement from the query's text: words only,
identifiers as escaped phrases, and whether the question asks for an earlier value."""

from __future__ import annotations

import pytest

from kg_brain.base.validate import content
from kg_brain.base.vocab import FULLTEXT_INDEX, WORD_INDEX
from kg_brain.domain.query_text import (
    MAX_IDENTIFIERS,
    MAX_LEX_WORDS,
    by_code,
    codes,
    content_word,
    exact_query,
    holds_identifier,
    identifiers,
    in_project,
    inside_query,
    lucene_query,
    names,
    shares,
    whole_query,
    word_queries,
)
from kg_brain.domain.question import (
    asks_for_many,
    clauses,
    earlier,
    glued,
    holds_number,
    numbers,
    subject_words,
    value_shapes,
)
from kg_brain.domain.search import MAX_QUERY_CHARS


@pytest.mark.parametrize(("query", "expected"), [
    ("what was BILL-2207 about?", ["bill-2207"]),
    ("9e3d1c0ab4", ["9e3d1c0ab4"]),
    ("cache.redis.max_idle_conns is too low", ["cache.redis.max_idle_conns"]),
    ("who wrote `worker/queue.py:88`?", ["worker/queue.py:88"]),
    ("E0277 again, and ERR_SOCKET_TIMEOUT from fetch", ["e0277", "err_socket_timeout"]),
    ("KAFKA_BOOTSTRAP_SERVERS=broker:9092", ["kafka_bootstrap_servers", "broker:9092"]),
    ("the getUserById call in error[E0599]", ["getuserbyid", "e0599"]),
    ("what does shard-balancer do", ["shard-balancer"]),
    # a reference number as written, then the bare number (a note may cite "PR 212")
    ("what did PR #212 change?", ["#212", "212"]),
    ("fixed in (#12)", ["#12"]),
    ("see issue#4417", ["issue#4417"]),
    # a bracketed index or key stays with the address it ends (every element is another one)
    ("why does the plan replace module.edge.aws_route_table.public[2]?",
     ["module.edge.aws_route_table.public[2]"]),
    ('aws_instance.bastion["west"].', ['aws_instance.bastion["west"]']),
    # a merge request as GitLab writes it, then the bare number when long enough
    ("what does MR !87 change?", ["!87"]),
    ("MR !512", ["!512", "512"]),
    # a one-word long option keeps its dashes; a longer one is an identifier without them
    ("why do we pass --frozen?", ["--frozen"]),
    ("--max-heap-size=2g", ["max-heap-size"]),
])
def test_identifiers_are_the_tokens_shaped_like_names_and_codes(query: str,
                                                                expected: list[str]) -> None:
    assert identifiers(query) == expected


@pytest.mark.parametrize("query", [
    "which port does the billing worker listen on?", "Why did we pick Postgres over SQLite?",
    "v2 of the S3 uploader", "-- : . _ ?", "AND OR NOT"])
def test_plain_words_short_tokens_and_punctuation_are_no_identifiers(query: str) -> None:
    assert identifiers(query) == []


def test_identifiers_are_capped_and_deduplicated() -> None:
    query = " ".join(f"T-{i}0" for i in range(20)) + " T-00 t-00"
    found = identifiers(query)
    assert len(found) == MAX_IDENTIFIERS and len(set(found)) == len(found)


def test_an_identifier_reaches_the_index_as_an_escaped_phrase_only() -> None:
    assert exact_query([]) == ""
    assert exact_query(["ab-12"]) == 'content:("ab-12") title:("ab-12")'
    assert exact_query(["v3.7.1"]) == 'content:("v3.7.1" "3.7.1") title:("v3.7.1" "3.7.1")'
    assert exact_query(['q"1', "c:\\x1"]) == (
        'content:("q\\"1" "c:\\\\x1") title:("q\\"1" "c:\\\\x1")')


@pytest.mark.parametrize(("text", "term", "held"), [
    ("KG-123: the export button", "kg-123", True),
    ("see KG-123.", "kg-123", True),
    ("KG-1234: the export times out", "kg-123", False),
    ("at src/app/db.py:420 the lock", "src/app/db.py:42", False),
    ("at src/app/db.py:42\nthe cursor", "src/app/db.py:42", True),
    ("ERR_CONN_REFUSED from vite", "err_conn_re", False),
    ("cache.redis.ttl_seconds is 60", "cache.redis.ttl", False),
    ("rebuilt into ANALYTICS.LOOKER_SCRATCH nightly", "looker_scratch", True),
    ("in app/proguard-rules.pro", "proguard-rules.pro", True),
    # a short hash is held by the full hash it starts, a number by a longer one never
    ("commit 4be8a71c2d9e0f3a5b6c7d8e9f0a1b2c on main", "4be8a71", True),
    ("commit 4be8a90 on main", "4be8a71", False),
    ("ticket 12345678", "1234567", False),
    # punctuation inside stands for any other, not for a space
    ("the lock at ledger/models.py:212", "ledger\\models.py:212", True),
    ("ERR-CONN-RESET in the log", "err_conn_reset", True),
    ("KG 123 in the log", "kg-123", False),
    # an English ending is the identifier's own
    ("no 504s since", "504", True),
    ("the self-hosted router", "self-host", True),
    ("what did PR #212 change", "#212", True),
    ('odd "q"1 and c:\\x1 (a.b+c)', "(a.b+c)", True),
    ("replace module.edge.aws_route_table.public[2] first", "module.edge.aws_route_table.public[2]",
     True),
    ("replace module.edge.aws_route_table.public[21] first",
     "module.edge.aws_route_table.public[2]", False),
    ("run it with --frozen=true", "--frozen", True),
    ("the frozen lockfile", "--frozen", False),
    ("MR !87 landed", "!87", True),
    ("MR !870 landed", "!87", False),
    # a version with or without its v
    ("tagged v3.7.1-beta.4 for the testers", "3.7.1-beta.4", True),
    ("tagged 3.7.1-beta.4 for the testers", "v3.7.1-beta.4", True),
    ("tagged 3.7.1-beta.41 for the testers", "v3.7.1-beta.4", False),
    ("the rev3.7.1 board", "3.7.1", False),
    # a short hash ending an identifier stands for the longer hash it starts
    ("pinned to sha256:5c1e9a07d2b44f0e8a6d3b17c9e2f4a0", "sha256:5c1e9a07", True),
    ("pinned to sha1:5c1e9a07d2b44f0e8a6d3b17c9e2f4a0", "sha256:5c1e9a07", False),
    ("range 0d4f2e1a..77c0b3e9f1 went out", "0d4f2e1a..77c0b3e", True),
])
def test_a_text_holds_an_identifier_as_a_word_not_inside_a_longer_one(
        text: str, term: str, held: bool) -> None:
    assert holds_identifier(text, term) is held


def test_identifiers_a_word_may_hold_inside_it_reach_the_word_index_as_wildcards() -> None:
    assert inside_query(["kg-123", "looker_scratch", "4be8a71", "a.b.c"]) == (
        "content:(*looker_scratch* *4be8a71* *a.b.c*) title:(*looker_scratch* *4be8a71* *a.b.c*)")
    assert inside_query(["kg-123", "db.py:42", 'q"1']) == ""
    assert inside_query(["sha256:5c1e9a07"]) == "content:(*5c1e9a07*) title:(*5c1e9a07*)"


@pytest.mark.parametrize(("query", "coded"), [
    ("KG-12", True),
    ("what was TKT-901 about?", True),
    ("useSocketRetry", True),
    ("--frozen?", True),
    ("MR !87", True),
    ("what is PgBouncer?", False),  # a product's name, not a code
    ("which port is the local postgres from docker compose on?", False),
    ("how many credits did April use in 2024?", False),  # more than NAMING_WORDS other words
    # in more words, by a code mixing letters and digits and at most CODE_WORDS content words
    ("what did we end up doing about CVE-2021-33910?", True),
    ("why does the plan want to touch module.db.aws_rds_cluster.main[1]?", True),
    ("why did the nightly export on the batch cluster break with E0716?", False),
    ("what Redis were we on right before 7.2?", False),  # a version: no code
])
def test_a_query_names_what_it_asks_for_by_a_code(query: str, coded: bool) -> None:
    assert by_code(query, identifiers(query)) is coded


@pytest.mark.parametrize(("query", "named", "weights"), [
    # a dashed word beside a code is part of the question, not what it names
    ("why was 7b1e0c4 back-ported?", ["7b1e0c4"], [1.0, 0.5]),
    ("is ORDERS_DLQ_TTL still read-only?", ["orders_dlq_ttl"], [1.0, 0.5]),
    # alone, or beside other dashed words, it is what the query names
    ("what does metrics-relay-sidecar do", ["metrics-relay-sidecar"], [1.0]),
    ("read-only vs write-through", ["read-only", "write-through"], [1.0, 1.0]),
])
def test_a_dashed_word_beside_a_code_counts_less_and_says_nothing_is_stored(
        query: str, named: list[str], weights: list[float]) -> None:
    terms = identifiers(query)
    assert codes(terms) == named and shares(terms) == weights


def test_a_query_with_lone_surrogates_can_be_sent() -> None:
    text = content("ticket \ud800QA-77\udfff", MAX_QUERY_CHARS, "query")
    assert text.encode("utf-8") and "QA-77" in text


@pytest.mark.parametrize(("question", "asks"), [
    ("what did the ingest batch size used to be?", "first"),
    ("which Go version did the service start out on?", "first"),
    ("what was the lock timeout before we raised it?", "before"),
    ("which TLS cipher did we use before the 2.0 release?", "before"),
    ("which region was the bucket in originally?", "first"),
    ("previously, what did the cron say?", "before"),
    ("how many replicas did we run before scaling out to eight?", "before"),
    ("what was the cache size before ops first cut it?", "first"),
    ("which node release did the monorepo start on?", "first"),
    ("cache size prior to the resize?", "before"),
    ("old worker count?", "before"),
    ("initial retry limit", "first"),
    ("the first replica count?", "first"),
    ("queue depth back when we launched", "first"),
    ("helm chart version pre-3.0?", "before"),
    ("lock timeout until we moved to 30s", "before"),
    ("kafka version we shipped with", None),  # no marker: read as the current value
    ("how many minutes do we wait before going to full traffic now?", None),
    ("what's the ingest batch size now?", None),
    ("how long does the job wait before it retries?", None),
    ("the migration has to finish before deploys start", None),
    ("which Go version is the service on?", None),
    ("is the cluster still on the old node pool?", None),
    ("what share of users gets the release on the first day?", None),
    ("when does the nightly export start?", None),
    ("pool size as of today", None),
    ("how old is the on-call rotation?", None),  # an age, not an earlier value
    ("How old were the cats when she adopted them?", None),
    ("which dump is the two-year-old backup?", None),
    ("delete snapshots 30 days old or more?", None),
    ("how old was the replica before the resync?", "before"),  # its other marker still counts
])
def test_a_question_asking_for_an_earlier_value_is_told_by_general_markers(
        question: str, asks: str | None) -> None:
    assert earlier(question) == asks


@pytest.mark.parametrize(("query", "named"), [
    ("OPS-4821", True),
    ("what was TKT-901 about?", True),
    ("nginx.conf:41", True),
    ("the bundled app dies on start: require() of ES Module left-pad-esm not supported", False),
    ("what was the incident about?", False),  # no identifier
])
def test_a_query_names_what_it_asks_for_with_an_identifier_and_few_other_words(
        query: str, named: bool) -> None:
    assert names(query, identifiers(query)) is named


def test_a_note_index_query_keeps_to_the_project_as_a_zero_boost_phrase() -> None:
    assert in_project("", "p") == ""
    assert in_project("content:(pool) title:(pool)^0.5", "kg-brain") == (
        '+(content:(pool) title:(pool)^0.5) +project:"kg-brain"^0')


def test_each_query_word_but_stop_words_is_asked_alone_in_the_boosted_fields_at_once() -> None:
    boosts = {"content": 1.0, "title": 0.25, "context": 0.0}
    kafka = '+(content:(kafka) title:(kafka)^0.25) +project:"api"^0'
    lag = '+(content:(lag) title:(lag)^0.25) +project:"api"^0'
    stemmed = {"whole": False, "index": FULLTEXT_INDEX, "share": 1.0, "rare": True,
               "content": True}
    assert word_queries("the kafka lag", boosts, "api", 0.0) == [
        {"query": kafka, **stemmed}, {"query": lag, **stemmed}]
    many = " ".join(f"w{n}" for n in range(MAX_LEX_WORDS + 5))
    assert len(word_queries(many, {"content": 1.0}, "api", 0.0)) == MAX_LEX_WORDS
    assert word_queries("", boosts, "api", 0.25) == []


def test_each_word_is_asked_of_both_indexes_the_stemmed_one_counting_rare_words() -> None:
    boosts = {"content": 1.0}
    query = '+(content:(generation)) +project:"api"^0'
    assert word_queries("generation", boosts, "api", 0.25) == [
        {"query": query, "whole": False, "index": FULLTEXT_INDEX, "share": 0.75, "rare": True,
         "content": True},
        {"query": query, "whole": False, "index": WORD_INDEX, "share": 0.25, "rare": False,
         "content": False}]


def test_a_question_s_own_words_numbers_and_letters_are_no_content_words() -> None:
    # the question words, weak verbs, a contraction's rest and a version's parts name nothing
    # a note would hold; the things asked about do
    words = lucene_query("How did we get the Kafka consumer lag past 2.0 and why don't we use it")
    assert [w for w in words.split() if content_word(w)] == ["kafka", "consumer", "lag", "past"]
    assert [q["content"] for q in word_queries("how kafka", {"content": 1.0}, "api", 0.25)] == [
        False, False, True, False]


def test_a_whole_query_is_scored_by_the_stemmed_index_alone() -> None:
    assert whole_query("") == []
    assert whole_query("content:(lag)") == [{"query": "content:(lag)", "whole": True,
                                             "index": FULLTEXT_INDEX, "share": 1.0,
                                             "rare": False, "content": False}]


@pytest.mark.parametrize(("question", "parts"), [
    ("pgbackrest: where does the repo live and when do the fulls run?",
     ["pgbackrest where does the repo live", "pgbackrest when do the fulls run"]),
    ("why did the broker change, and what's the amqp url now?",
     ["why did the broker change", "what's the amqp url now"]),
    ("which node do I need; which pnpm?", ["which node do I need", "which pnpm"]),
    ("what runs on a merge request: the linter and the dbt build?", []),  # one clause
    ("which port does the payments service listen on?", []),
    ("which show did she go to on 9 April, 2023?", []),  # a date's comma splits nothing
    ("a, b, c, d, e", []),  # more than MAX_CLAUSES: a list or a pasted log, read as one
])
def test_a_question_asking_several_things_is_split_into_its_clauses(
        question: str, parts: list[str]) -> None:
    assert clauses(question) == parts


@pytest.mark.parametrize(("question", "many"), [
    ("which regions does the CDN serve from?", True),
    ("what retry settings does the uploader read?", True),
    ("What cities/towns has she lived in?", True),  # a/b counts as one word
    ("in what ways did the rollout change?", True),
    ("what follow-ups came out of the review?", True),
    ("what does the uploader do on a timeout?", False),  # does: no plural
    ("what is this flag for?", False),
    ("which port does the payments service listen on?", False),  # past the two words
    ("what's the Node.js version?", False),
    ("why did the deploy fail?", False),
])
def test_a_question_naming_what_it_asks_for_in_the_plural_asks_for_many(
        question: str, many: bool) -> None:
    assert asks_for_many(question) is many


def test_the_numbers_a_question_names_are_read_whole_and_once() -> None:
    assert numbers("replica count before we went to 12?") == ["12"]
    assert numbers("helm chart right before 3.14.2, not 3.14.2-rc1") == ["3.14.2", "1"]
    assert numbers("node version before the pg16 move") == ["16"]
    assert numbers("which port did the gateway use originally?") == []


@pytest.mark.parametrize(("text", "number", "held"), [
    ("moved the gateway to 3.14.2 (from 3.13.0)", "3.14", True),  # a version's prefix
    ("the worker pool is 60% busy", "60", True),
    ("upgraded the cluster to pg16", "16", True),
    ("the worker pool has 160 slots", "60", False),  # inside another number
    ("chart 2.16 is pinned", "16", False),
    ("chart 3.140 is pinned", "3.14", False),
])
def test_a_text_holds_a_number_only_as_a_whole_number_or_a_version_prefix(
        text: str, number: str, held: bool) -> None:
    assert holds_number(text, number) is held


@pytest.mark.parametrize(("question", "shapes"), [
    ("which Kotlin version is the build on?", ["version:"]),
    ("what share of users gets it on day one?", ["pct:"]),
    ("how long do courier tokens last?", ["q:"]),
    ("how many partitions does the topic have?", ["q:"]),
    ("which port does the ledger API use?", ["port:"]),
    ("what instance class is the prod database?", ["class:"]),
    ("what's the monthly budget for prod?", ["money:"]),
    ("why did we pick meilisearch?", []),
])
def test_a_question_asks_for_the_shapes_of_value_it_names(question: str,
                                                          shapes: list[str]) -> None:
    assert value_shapes(question) == shapes


def test_the_subject_words_are_the_content_words_a_plural_s_dropped() -> None:
    assert subject_words("how many partitions do the parcel events topics have?") == [
        "event", "parcel", "partition", "topic"]
    assert subject_words("is the class less?") == ["class", "less"]


def test_names_are_looked_for_without_their_punctuation() -> None:
    assert glued("Day-one rollout: 5% (was 10%)") == "dayonerollout5was10"
