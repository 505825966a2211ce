"""Ranking evidence beyond the cosine, on the real server and embedder: a rare identifier the
query names finds the note holding it word for word among look-alikes holding others of its
form, whatever its cosine; the newer of two notes stating the same value ranks first, and a
question about the earlier value gets the older one."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest

from kg_brain.base.vocab import LinkType
from kg_brain.domain import search as search_module
from kg_brain.domain.ranking import SAME_LINKED
from kg_brain.domain.search import Search
from kg_brain.enrichment.embed import SentenceTransformerEmbedder
from kg_brain.root.app import Brain
from kg_brain.shapes.models import Hit
from kg_brain.store.db import Database
from kg_brain.views.sentences import backfill_sentences
from tests.support.brains import make_brain

pytestmark = pytest.mark.usefixtures("own_drains")  # tests/integration/conftest.py

SERVICES = ["loyalty-api", "stock-sync", "price-engine", "shift-planner", "voucher-service",
            "store-admin", "audit-exporter", "tax-calculator", "kiosk-bridge", "report-builder"]


class Days:
    """A clock one day further at every `next()`: notes get distinct creation times."""

    def __init__(self) -> None:
        self.now = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def next(self) -> None:
        self.now += timedelta(days=1)


@pytest.fixture
def days() -> Days:
    return Days()


@pytest.fixture
def brain(db: Database, embedder: SentenceTransformerEmbedder, days: Days) -> Brain:
    return make_brain(db, embedder, clock=days)


def record(content: str, project: str) -> dict[str, Any]:
    return {"content": content, "title": content[:60], "project": project}


def tickets(brain: Brain, project: str) -> str:
    """Twenty look-alike tickets of one form around the one asked about; returns its id."""
    brain.importer.add_many([record(
        f"PAY-{1500 + 7 * i}: refunds of split tenders in {SERVICES[i % 10]} were rounded per "
        f"line; the fix lives in {SERVICES[i % 10].replace('-', '_')}/refunds.py.", project)
        for i in range(20)])
    return brain.importer.add_many([record(
        "PAY-1432: refunds of split tenders credited the whole amount to the first card; "
        "ledger/refunds.py now allocates the refund per tender.", project)])[0]


def channels(hit: Hit) -> set[str]:
    return {f.channel for f in hit.found_by}


def rankings(brain: Brain, query: str, project: str) -> list[list[str]]:
    """The ids search_memory and deep_search answer `query` with, best first."""
    settled(brain, project)
    return [[h.zk_id for h in search(query, project)]
            for search in (brain.search.search_memory, brain.search.deep_search)]


def settled(brain: Brain, project: str) -> None:
    """Every note of the project holds its sentence vectors, as once its sentences jobs ran: a
    maintenance drain in another process may run them at any moment otherwise."""
    backfill_sentences(brain.deps, apply=True, project=project)


def unordered_by_time(brain: Brain, query: str, project: str) -> list[str]:
    """The ids search_memory answers `query` with when no note yields to a later one."""
    settled(brain, project)
    off = Search(brain.deps, replace(brain.search.tuning, same_n=0),
                 replace(brain.search.deep_tuning, same_n=0))
    return [h.zk_id for h in off.search_memory(query, project)]


@pytest.mark.parametrize("query", ["what was PAY-1432 about?", "PAY-1432", "pay-1432 again"])
def test_the_note_holding_the_asked_identifier_ranks_first_among_lookalikes(
        brain: Brain, project: str, query: str) -> None:
    wanted = tickets(brain, project)
    settled(brain, project)
    for hits in (brain.search.search_memory(query, project, top_k=5),
                 brain.search.deep_search(query, project, top_k=5)):
        assert hits[0].zk_id == wanted and "exact" in channels(hits[0])
        assert not [h for h in hits[1:] if "exact" in channels(h)]


def test_a_held_identifier_is_relevant_whatever_its_cosine(brain: Brain, project: str) -> None:
    tickets(brain, project)
    held = brain.importer.add_many([record(
        "Rolled back 7c1e9a04bd: it restored the old nginx upstream block.", project)])[0]
    strict = Search(brain.deps, replace(brain.search.tuning, floor=0.99),
                    word_floor=(0.99, 0.0, 0.0))
    settled(brain, project)
    for hits in (strict.search_memory("7c1e9a04bd", project, top_k=3),
                 strict.deep_search("7c1e9a04bd", project, top_k=3)):
        assert hits[0].zk_id == held and hits[0].relevance < 0.99
        assert strict.relevant(hits[0]) and not strict.relevant(hits[-1])
    assert strict.search_memory("what was PAY-1999 about?", project) == []  # nobody holds it
    assert strict.deep_search("5d2f0be1c9", project) == []


def test_a_token_many_notes_hold_is_no_evidence(brain: Brain, project: str) -> None:
    brain.importer.add_many([record(f"{s} logs ERRX-77 when its queue is full.", project)
                             for s in SERVICES[:brain.search.tuning.exact_df + 1]])
    settled(brain, project)
    hits = brain.search.search_memory("ERRX-77", project)
    assert hits == [] or not [h for h in hits if "exact" in channels(h)]


def test_an_identifier_inside_a_longer_token_is_relevant_unless_many_hits_hold_it(
        brain: Brain, project: str) -> None:
    # the note index keeps "analytics.looker_scratch" as one word: no phrase query finds
    # "looker_scratch" in it, the note holds it all the same
    brain.importer.add_many([record(f"{s} deploys from the main branch every weekday.", project)
                             for s in SERVICES[:3]])
    held = brain.importer.add_many([record(
        "Looker's derived tables live in analytics.looker_scratch and rebuild nightly.",
        project)])[0]
    strict = Search(brain.deps, replace(brain.search.tuning, floor=0.99),
                    word_floor=(0.99, 0.0, 0.0))
    settled(brain, project)
    hits = strict.search_memory("LOOKER_SCRATCH", project, top_k=3)
    assert hits[0].zk_id == held and hits[0].relevance < 0.99
    brain.importer.add_many([record(f"{s} writes its exports to warehouse.errq_77 hourly.",
                                    project)
                             for s in SERVICES[3:4 + brain.search.tuning.exact_df]])
    assert strict.search_memory("ERRQ_77", project, top_k=3) == []


def test_a_reference_number_finds_the_note_citing_it_above_one_stating_the_number(
        brain: Brain, project: str) -> None:
    cited, counted = brain.importer.add_many([
        record("Budgets policy now allows budgets:ModifyBudget on the team budgets (PR #212).",
               project),
        record("WAF rule on the invoice load balancer: 212 requests per 5 minutes per IP; "
               "what changed is the limit per IP.", project)])
    settled(brain, project)
    assert brain.search.search_memory("what did PR #212 change?", project, top_k=2)[0].zk_id \
        == cited


def test_lucene_syntax_in_an_identifier_is_only_text(brain: Brain, project: str) -> None:
    held = brain.importer.add_many([record(
        "The lock at ledger/models.py:212 serialises postings per till.", project)])[0]
    settled(brain, project)
    for query in ("ledger/models.py:212", 'why "ledger/models.py:212"?', "models.py:212]",
                  "ledger\\models.py:212 OR *"):
        assert brain.search.search_memory(query, project, top_k=3)[0].zk_id == held, query


def write(brain: Brain, days: Days, project: str, contents: list[str]) -> list[str]:
    """Notes through the bulk import (no link rules: no SUPERSEDES), a day apart."""
    ids = []
    for content in contents:
        ids += brain.importer.add_many([record(content, project)])
        days.next()
    return ids


def the_newer_first(brain: Brain, project: str, old: str, new: str, current: str,
                    history: str) -> None:
    """`old` ranks above `new` for `current` when no note yields to a later one (the older
    note words the question closer); both searches put `new` first, and `old` for `history`."""
    ranked = unordered_by_time(brain, current, project)
    assert ranked.index(old) < ranked.index(new)
    for ranked in rankings(brain, current, project):
        assert ranked.index(new) < ranked.index(old)
    for ranked in rankings(brain, history, project):
        assert ranked.index(old) < ranked.index(new)


def test_the_newer_value_ranks_first_and_a_history_question_gets_the_older(
        brain: Brain, days: Days, project: str) -> None:
    old, = write(brain, days, project, [
        "The ledger API serves on port 8020 in development; set LEDGER_HTTP_PORT to change it."])
    write(brain, days, project, [
        f"The {s} API serves on port {8030 + i} in development; set {s.upper().replace('-', '_')}"
        f"_HTTP_PORT to change it." for i, s in enumerate(SERVICES[:6])])
    new, = write(brain, days, project, [
        "LEDGER_HTTP_PORT is now 8025: the ledger API serves there in development (was 8020)."])
    the_newer_first(brain, project, old, new,
                    "which port does the ledger API serve on in development?",
                    "which port did the ledger API serve on in development before?")


def test_a_note_on_another_subject_does_not_yield(brain: Brain, days: Days,
                                                  project: str) -> None:
    ledger, billing = write(brain, days, project, [
        "The ledger API serves on port 8020 in development; set LEDGER_HTTP_PORT to change it.",
        "The billing API serves on port 8040 in development; set BILLING_HTTP_PORT to change "
        "it."])
    settled(brain, project)
    hits = brain.search.search_memory("which port does the ledger API serve on?", project)
    assert hits[0].zk_id == ledger and billing in {h.zk_id for h in hits}


def test_the_newer_value_is_lifted_from_below_lookalikes(brain: Brain, days: Days,
                                                         project: str) -> None:
    """The note that changed the value words it otherwise ("we moved", a reason) and ranks below
    notes on the same service's other ports; it still comes first, the old note just below."""
    write(brain, days, project, [
        "The ledger API serves its Prometheus metrics on port 9120 in development.",
        "The ledger API's admin console serves on port 8021 in development.",
        "The ledger API's gRPC health endpoint serves on port 8022 in development."])
    old, = write(brain, days, project, [
        "The ledger API serves on port 8020 in development; set LEDGER_HTTP_PORT to change it."])
    new, = write(brain, days, project, [
        "We moved the ledger API to 8025 in development (LEDGER_HTTP_PORT) since 8020 clashed "
        "with the docs preview server."])
    current = "which port does the ledger API serve on in development?"
    ranked = unordered_by_time(brain, current, project)
    assert ranked[0] == old and ranked.index(new) >= 3  # below the other ports
    for ranked in rankings(brain, current, project):
        assert ranked[:2] == [new, old]


def test_a_note_rewritten_by_update_states_the_current_value(brain: Brain, days: Days,
                                                             project: str) -> None:
    """A value changed by a new note, then again by rewriting the first note (update_memory):
    the rewritten note states the newest value although it was created first."""
    first, second = write(brain, days, project, [
        "The nightly invoice export runs at 02:00 UTC (EXPORT_CRON in deploy/cron.yaml).",
        "EXPORT_CRON moved to 03:30 UTC: at 02:00 the nightly invoice export overlapped the "
        "database backup."])
    days.next()
    brain.writer.update(first, "EXPORT_CRON is 04:15 UTC now (deploy/cron.yaml): the nightly "
                               "invoice export runs after the backup and the vacuum jobs.")
    for ranked in rankings(brain, "when does the nightly invoice export run?", project):
        assert ranked.index(first) < ranked.index(second)
    for ranked in rankings(brain, "when did the nightly invoice export run before?", project):
        assert ranked.index(second) < ranked.index(first)


def label_printing_failed(brain: Brain, project: str) -> str:
    """A recorded failure a fix can resolve; its id."""
    return brain.mistakes.record_failure(
        "Label printing for Harbour Post fails: the label API call times out after 8 s when a "
        "batch holds more than 40 parcels.", project, "HP-LABEL-TIMEOUT").zk_id


def test_a_fix_keeps_its_place_above_a_later_note_on_its_setting(brain: Brain, days: Days,
                                                                project: str) -> None:
    """A fix never yields: a symptom question still gets the fix first, not a later note setting
    the same timeout again."""
    failed = label_printing_failed(brain, project)
    days.next()
    fix = brain.mistakes.record_resolution(
        failed, "Raised HARBOUR_LABEL_TIMEOUT to 30 s and split Harbour Post label "
                      "batches at 40 parcels; label printing no longer times out.", project)
    days.next()
    later, = write(brain, days, project, [
        "HARBOUR_LABEL_TIMEOUT is 45 s now for the Harbour Post label API in production; label "
        "batches are still split at 40 parcels."])
    for ranked in rankings(brain, "label printing for Harbour Post times out on big batches",
                           project):
        assert ranked.index(fix.fix_zk_id) < ranked.index(later)


def test_a_value_a_fix_set_ranks_above_the_one_it_replaced(brain: Brain, days: Days,
                                                          project: str) -> None:
    """A recorded resolution states the value it set: asked for the current value it comes
    before the earlier note stating the old one; asked for history, the earlier note."""
    old, = write(brain, days, project, [
        "The Harbour Post label API client in production uses HARBOUR_LABEL_TIMEOUT = 8 s."])
    failed = label_printing_failed(brain, project)
    days.next()
    fix = brain.mistakes.record_resolution(
        failed, "Raised HARBOUR_LABEL_TIMEOUT to 30 s for the Harbour Post label API in "
                      "production and split label batches at 40 parcels.", project).fix_zk_id
    the_newer_first(brain, project, old, fix,
                    "what is HARBOUR_LABEL_TIMEOUT for the Harbour Post label API in production?",
                    "what was HARBOUR_LABEL_TIMEOUT for the Harbour Post label API in production "
                    "before?")


def test_a_question_for_the_value_before_a_named_one_gets_that_one_not_the_first(
        brain: Brain, days: Days, project: str) -> None:
    first, middle, newest = write(brain, days, project, [
        "The ledger API serves on port 8020 in development; set LEDGER_HTTP_PORT to change it.",
        "LEDGER_HTTP_PORT is now 8025: the ledger API serves there in development (was 8020).",
        "LEDGER_HTTP_PORT is now 8030: the ledger API serves there in development (was 8025)."])
    for ranked in rankings(brain, "which port did the ledger API serve on in development "
                                  "right before 8030?", project):
        assert ranked[:2] == [middle, newest]
    for ranked in rankings(brain, "which port did the ledger API serve on in development "
                                  "originally?", project):
        assert ranked[0] == first


def test_a_question_for_the_value_before_a_named_one_starts_from_the_note_that_set_it(
        brain: Brain, days: Days, project: str) -> None:
    """The note stating the named value first is the one that set it; a later one names it as
    the value it replaced ("was 8025") and is the best hit. The note that set it yields to the
    one before it, not the best hit to the note that set it."""
    first, middle, newest = write(brain, days, project, [
        "LEDGER_HTTP_PORT is 8020 for the ledger API in development.",
        "LEDGER_HTTP_PORT moved to 8025 for the ledger API in development (from 8020).",
        "The ledger API serves on port 8030 in development now; LEDGER_HTTP_PORT was 8025 "
        "before the docs preview server took it."])
    for a, b in ((middle, first), (newest, middle), (newest, first)):
        brain.db.write_tx(lambda tx, a=a, b=b: brain.writer.link(
            tx, a, b, LinkType.SUPERSEDES, "changes the port", origin="auto"))
    query = "which port did the ledger API serve on in development right before 8025?"
    assert unordered_by_time(brain, query, project)[0] == newest
    for ranked in rankings(brain, query, project):
        assert ranked.index(first) < ranked.index(middle)


def assert_alike_as_linked(embedder: SentenceTransformerEmbedder, texts: list[str]) -> None:
    """The two texts' mutual cosine (in [-1, 1]) is at least SAME_LINKED: alike enough that a
    SUPERSEDES link between them counts in the ranking."""
    vectors = [np.asarray(embedder.encode(t)) for t in texts]
    assert np.dot(*vectors) / np.prod([np.linalg.norm(v) for v in vectors]) >= SAME_LINKED


def test_asked_for_history_a_fix_yields_to_the_note_it_replaced(
        brain: Brain, days: Days, project: str, embedder: SentenceTransformerEmbedder) -> None:
    """A recorded resolution changed a value and superseded the note stating the old one
    (mutual cosine at least SAME_LINKED, in [-1, 1]); a history question words the change, so
    the fix ranks first when no note yields: both searches put the replaced note first."""
    texts = ["The label printer bridge runs Node 18.19 on the depot PCs, pinned in "
             "bridge/.nvmrc.",
             "The label printer bridge runs Node 22.11 now on the depot PCs (was Node 18.19): "
             "AbortSignal.timeout() needs it; bridge/.nvmrc updated."]
    assert_alike_as_linked(embedder, texts)
    old, = write(brain, days, project, texts[:1])
    failed = brain.mistakes.record_failure(
        "The label printer bridge crashes at start on the depot PCs: AbortSignal.timeout is "
        "not a function in its Node runtime.", project, "LABEL-BRIDGE-ABORT").zk_id
    days.next()
    fix = brain.mistakes.record_resolution(failed, texts[1], project).fix_zk_id
    brain.db.write_tx(lambda tx: brain.writer.link(tx, fix, old, LinkType.SUPERSEDES,
                                                   "changes the Node runtime", origin="auto"))
    query = "which Node did the label printer bridge run on before the AbortSignal fix?"
    assert unordered_by_time(brain, query, project)[0] == fix
    for ranked in rankings(brain, query, project):
        assert ranked[0] == old


@pytest.mark.parametrize("later_kind", ["general", "decision"])
def test_a_linked_decision_yields_only_to_a_later_decision(brain: Brain, days: Days,
                                                           project: str, later_kind: str) -> None:
    """The write path links notes of one topic by SUPERSEDES: a decision and a later general
    note on the same nodes (mutual cosine about 0.63, the later one far less close to the
    question). Asked why, the decision keeps its place; a later decision on them takes it."""
    decision, = brain.importer.add_many([record(
        "We chose Karpenter over cluster-autoscaler for the batch nodes: it brings up spot "
        "nodes in seconds and packs jobs onto fewer nodes.", project) | {"note_kind": "decision"}])
    days.next()
    later, = brain.importer.add_many([record(
        "infra/karpenter/pools.yaml sets a spot node pool per job queue; consolidation runs "
        "every 30 s and the on-demand fallback is 20 nodes.", project)
        | {"note_kind": later_kind}])
    brain.db.write_tx(lambda tx: brain.writer.link(tx, later, decision, LinkType.SUPERSEDES,
                                                   "changes the batch nodes", origin="auto"))
    query = "why did we choose Karpenter for the batch nodes?"
    assert unordered_by_time(brain, query, project)[0] == decision
    ranked = [h.zk_id for h in brain.search.search_memory(query, project)]
    assert ranked[0] == (decision if later_kind == "general" else later)


def test_a_linked_later_note_past_the_best_hits_takes_the_current_value(
        brain: Brain, days: Days, project: str, embedder: SentenceTransformerEmbedder,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The write path linked a later note changing a value to the note stating it (mutual
    cosine at least SAME_LINKED, in [-1, 1]); the later note ranks below the best same_n hits.
    Asked for the current value it still comes first, when it is among the best LINKED_FAR
    times same_n; asked for history, the older note stays first."""
    texts = ["The checkout API allows 100 requests per minute per client; the limit is "
             "RATE_LIMIT_RPM in config/limits.yaml.",
             "RATE_LIMIT_RPM is 250 now in config/limits.yaml: 100 requests per minute per "
             "client was too low for the sale."]
    assert_alike_as_linked(embedder, texts)
    old, new = write(brain, days, project, texts)
    brain.db.write_tx(lambda tx: brain.writer.link(tx, new, old, LinkType.SUPERSEDES,
                                                   "changes the limit", origin="auto"))
    first = Search(brain.deps, replace(brain.search.tuning, same_n=1),
                   replace(brain.search.deep_tuning, same_n=1))
    current = "how many requests per minute may a client send to the checkout API?"
    history = "how many requests per minute could a client send to the checkout API before?"

    def ranked(query: str) -> list[list[str]]:
        return [[h.zk_id for h in search(query, project)]
                for search in (first.search_memory, first.deep_search)]

    monkeypatch.setattr(search_module, "LINKED_FAR", 1)
    assert ranked(current) == [[old, new], [old, new]]  # the head is the best hit alone
    monkeypatch.undo()
    assert ranked(current) == [[new, old], [new, old]]
    assert [r[0] for r in ranked(history)] == [old, old]


def test_of_the_later_notes_a_note_yields_to_the_closest_to_the_question_ranks_first(
        brain: Brain, days: Days, project: str, embedder: SentenceTransformerEmbedder) -> None:
    """The write path links a note by SUPERSEDES to later look-alikes on sibling services
    (mutual cosine at least SAME_LINKED, in [-1, 1]) as well as to the note changing its value:
    each takes the note's score, and of them the closest to the question ranks first."""
    old, = write(brain, days, project, [
        "The ledger API serves on port 8020 in development; set LEDGER_HTTP_PORT to change it."])
    texts = [f"We moved the {s} API to {8041 + i} in development "
             f"({s.upper().replace('-', '_')}_HTTP_PORT) since {8040 + i} clashed with the docs "
             f"preview server." for i, s in enumerate(["ledger-admin", "ledger-export",
                                                       "ledger-audit", "ledger-sync"])]
    texts.append("We moved the ledger API to 8025 in development (LEDGER_HTTP_PORT) since 8020 "
                 "clashed with the docs preview server.")
    query = "which port does the ledger API serve on in development?"
    unit = [v / np.linalg.norm(v) for v in (np.asarray(embedder.encode(t), dtype=np.float64)
                                            for t in [query, *texts])]
    assert all(np.dot(unit[-1], unit[0]) > np.dot(u, unit[0]) for u in unit[1:-1])
    later = write(brain, days, project, texts)
    for zk_id in later:
        brain.db.write_tx(lambda tx, z=zk_id: brain.writer.link(
            tx, z, old, LinkType.SUPERSEDES, "changes the port", origin="auto"))
    assert unordered_by_time(brain, query, project)[0] == old  # it outranks every later note
    for ranked in rankings(brain, query, project):
        assert ranked[0] == later[-1] and ranked.index(old) == len(later)


def test_a_later_session_summary_states_the_current_value(brain: Brain, days: Days,
                                                          project: str) -> None:
    """A session closed with a value changed in its summary alone: asked for the current value
    among handoffs, the summary ranks above the note stating the old value; asked for history,
    the note."""
    old, = write(brain, days, project, [
        "Production rollouts wait 48 hours before going from 10% to 50% of users "
        "(ROLLOUT_STEP_HOURS in release/config.yaml)."])
    summary = brain.sessions.close(
        project, "Rollout steps",
        ["ROLLOUT_STEP_HOURS raised to 96: rollouts wait 96 hours before the 50% step"], [],
        ["ask Play support about vitals alerts"]).summary_zk_id
    current = "how many hours do we wait before going to 50% in a rollout now?"
    history = "how many hours did we wait before going to 50% in a rollout originally?"
    off = Search(brain.deps, replace(brain.search.tuning, same_n=0),
                 replace(brain.search.deep_tuning, same_n=0))
    settled(brain, project)
    hits = {h.zk_id: h for h in off.search_memory(current, project, include_contextual=True)}
    assert list(hits).index(old) < list(hits).index(summary)
    # the summary reaches the query at most same_reach less close (cosines in [-1, 1])
    assert hits[summary].relevance >= hits[old].relevance - brain.search.tuning.same_reach

    def both(query: str) -> list[list[str]]:
        return [[h.zk_id for h in search(query, project, include_contextual=True)]
                for search in (brain.search.search_memory, brain.search.deep_search)]

    assert [r[0] for r in both(current)] == [summary, summary]
    assert [r[0] for r in both(history)] == [old, old]
    assert brain.search.search_memory(current, project)[0].zk_id == old  # no handoffs asked for


def test_a_later_note_restating_the_value_it_replaced_takes_the_current_value(
        brain: Brain, days: Days, project: str) -> None:
    """Notes the write path never linked: the later one restates the day-one share it replaced
    beside the new one. Asked for the share, both searches put it first; asked what it was at
    first, the older note. A later note of another service restating that share (a name
    neither the older note nor the question holds) takes nothing."""
    old, = write(brain, days, project, [
        "Production rollouts are staged: 10% of users on day one, 50% after 48 hours if the "
        "crash-free rate holds."])
    write(brain, days, project, [
        f"Rollout of 3.{i}.0 is at {20 + 9 * i}% now (was {3 + i}%); the on-call watches the "
        f"crash-free rate." for i in range(4)])
    new, = write(brain, days, project, [
        "Day-one rollout is 5% now (was 10%) after the ANRs of 3.7.0."])
    other, = write(brain, days, project, [
        "The kiosk_bridge day-one rollout is 20% now (was 10%) for the store tablets."])
    current = "what share of users gets a new version on the first day of a rollout?"
    the_newer_first(brain, project, old, new, current,
                    "what share of users got a new version on the first day of a rollout "
                    "originally?")
    for ranked in rankings(brain, current, project):
        assert ranked.index(new) < ranked.index(other)


def test_a_fix_yields_to_a_later_note_restating_the_value_it_set(brain: Brain, days: Days,
                                                                project: str) -> None:
    """A fix states the value it set and never yields to a later note on its setting, but asked
    for that value, it yields to a later note restating it as the value it replaced."""
    failed = brain.mistakes.record_failure(
        "After the Kotlin 2.0 bump kapt failed on :core:database with an internal error.",
        project, "KAPT-K2").zk_id
    days.next()
    fix = brain.mistakes.record_resolution(
        failed, "The build is on Kotlin version 2.0.0 now with the K2 compiler (was 1.9.22): "
                "room and hilt moved from kapt to ksp.", project).fix_zk_id
    days.next()
    later, = write(brain, days, project, [
        "Moved kotlin to 2.0.20 (from 2.0.0) with ksp 2.0.20-1.0.24 for the compose bugfixes."])
    current = "which Kotlin version is the build on?"
    ranked = unordered_by_time(brain, current, project)
    assert ranked.index(fix) < ranked.index(later)
    for ranked in rankings(brain, current, project):
        assert ranked.index(later) < ranked.index(fix)
