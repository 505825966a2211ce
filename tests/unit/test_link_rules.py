"""Link typing on the confusions that made the graph noisy: a fix and the decision it carries
out, a mistake and its own fix, one sentence about two services, a restated fact, a changed value.
"""

from __future__ import annotations

from kg_brain.llm.heuristic import HeuristicEnricher, make_title
from kg_brain.llm.types import Candidate, NoteDraft
from kg_brain.vocab import LinkType

ENRICHER = HeuristicEnricher(min_similarity=0.45)


def link(new: str, new_kind: str, old: str, old_kind: str, similarity: float
         ) -> LinkType | None:
    note = NoteDraft(title=make_title(new), content=new, note_kind=new_kind)
    cand = Candidate(zk_id="ZK-00000001", title=make_title(old), content=old,
                     note_kind=old_kind, similarity=similarity)
    links = ENRICHER.decide_links(note, [cand])
    return links[0].link_type if links else None


def test_a_fix_fixes_the_mistake_about_the_same_thing() -> None:
    assert link("Fix: the sync job now pages through suppliers 500 at a time, so the "
                "importer no longer times out.", "general",
                "The supplier importer timed out on catalogues over 10k items.", "mistake",
                0.72) == LinkType.FIXES


def test_a_fix_never_fixes_a_mistake_about_another_service() -> None:
    assert link("Fixed the billing worker timeouts by raising the client timeout to 30 s.",
                "fix", "The shipping worker timed out against the carrier API.", "mistake",
                0.7) is None


def test_a_fix_relates_to_the_decision_it_carries_out_and_never_contradicts_it() -> None:
    got = link("Fixed the checkout bug where the client price was trusted: the orders route "
               "no longer reads prices from the request and recomputes the total.", "general",
               "Decision: order totals are computed on the server only; the client never "
               "sends prices.", "decision", 0.7)
    assert got == LinkType.RELATES_TO


def test_a_mistake_recorded_after_its_fix_does_not_contradict_it() -> None:
    got = link("Customers got duplicate invoice emails when the mailer retried after an SMTP "
               "timeout.", "mistake", "Fixed duplicate invoice emails with a unique constraint "
               "on email_log (invoice_id, kind); the mailer no longer sends twice.", "fix", 0.75)
    assert got == LinkType.RELATES_TO


def test_the_same_sentence_about_another_service_is_not_linked() -> None:
    assert link("The inventory sync's migrations run with Alembic 1.13.", "general",
                "The payment worker's migrations run with Alembic 1.13.", "general",
                0.95) is None


def test_a_restated_fact_relates_and_does_not_supersede() -> None:
    assert link("Reminder: the payments worker retries Stripe calls 3 times.", "general",
                "The payment worker retries Stripe calls 3 times with backoff.", "general",
                0.93) == LinkType.RELATES_TO


def test_a_changed_value_supersedes() -> None:
    assert link("The payment worker now listens on port 8002.", "general",
                "The payment worker listens on port 8001.", "general",
                0.9) == LinkType.SUPERSEDES
    assert link("The API moved to Node 22 in the Dockerfile.", "general",
                "The API runs Node 20 in the Dockerfile.", "general",
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
    assert link("Do not run the inventory sync by hand during the nightly import.", "general",
                "The inventory sync never deletes products; it only marks them inactive.",
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
    assert link("Measured: the Redis cache cut product page p95 from 900 ms to 120 ms.",
                "research", "We decided to cache product pages in Redis.", "decision",
                0.65) == LinkType.SUPPORTS


def test_a_fuller_note_on_the_same_subject_extends_it() -> None:
    assert link("The payment worker retries failed Stripe calls up to 3 times with exponential "
                "backoff from 2 s, only for requests that carry an Idempotency-Key.", "general",
                "The payment worker retries failed Stripe calls.", "general",
                0.8) == LinkType.EXTENDS


def test_below_the_floor_nothing_is_linked() -> None:
    assert link("Lunch menus rotate weekly.", "general", "The payment worker listens on port "
                "8001.", "general", 0.1) is None


def test_notes_dated_on_other_days_do_not_supersede_each_other() -> None:
    assert link("Melanie (10:37 am on 27 June, 2023): the pottery class was great again.",
                "general", "Melanie (7:55 pm on 9 June, 2023): the pottery class was great.",
                "general", 0.9) != LinkType.SUPERSEDES
    assert link("The ledger cutover moved from 3 May to 10 May.", "general",
                "The ledger cutover is planned for 3 May.", "general",
                0.85) == LinkType.SUPERSEDES
    assert link("ledgerline pins Stripe API version 2024-04-10 now.", "general",
                "The Stripe API version pinned for ledgerline is 2022-11-15.", "general",
                0.86) == LinkType.SUPERSEDES
