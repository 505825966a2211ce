"""Retrieval on the real server: hybrid search, deep search, neighbourhoods, access stamping."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pytest

from bench.plan_keys import plan_key
from bench.scale_profile import Recording
from bench.store import project_vectors, ranking_lexical, raw_fulltext_query
from kg_brain.base.errors import NotFound
from kg_brain.base.vocab import FULLTEXT_INDEX, WORD_INDEX, LinkType
from kg_brain.domain import search as search_module
from kg_brain.domain.mistakes import Mistakes
from kg_brain.domain.query_text import fielded_query, in_project, lucene_query
from kg_brain.domain.question import asks_for_many
from kg_brain.domain.ranking import DeepTuning, Tuning
from kg_brain.domain.search import Search
from kg_brain.enrichment.embed import SentenceTransformerEmbedder
from kg_brain.root.app import Brain
from kg_brain.store.db import Database
from kg_brain.store.notes import new_zk_id
from tests.support.brains import make_brain

pytestmark = pytest.mark.usefixtures("own_drains")  # tests/integration/conftest.py

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def brain(db: Database, embedder: SentenceTransformerEmbedder) -> Brain:
    return make_brain(db, embedder, clock=lambda: NOW)


@pytest.fixture
def search(brain: Brain) -> Search:
    return brain.search


def note(content: str, project: str, title: str = "", **extra: Any) -> dict[str, Any]:
    """An import record with an explicit title (skips enrichment: fast and deterministic)."""
    return {"content": content, "title": title or content[:40], "context": "", "keywords": [],
            "project": project, **extra}


def seed(brain: Brain, project: str) -> dict[str, str]:
    texts = {
        "pool": "The connection pool is exhausted when workers hold sessions across requests.",
        "retry": "Retry transient Neo4j errors with exponential backoff inside transaction "
                 "functions.",
        "token": "Deploy key rotation uses the identifier QX7ZETA-4411 in the vault path.",
        "cache": "The embedding model is cached on first use so the server starts quickly.",
        "ports": "The local Neo4j server picks free ports for bolt and http at start.",
        "tests": "Each test writes into its own project and never wipes the database.",
    }
    ids = brain.importer.add_many([note(t, project) for t in texts.values()])
    return dict(zip(texts, ids, strict=True))


def test_hybrid_search_finds_lexical_only_match(brain: Brain, search: Search,
                                                project: str) -> None:
    ids = seed(brain, project)
    hits = search.search_memory("QX7ZETA-4411", project, top_k=3)
    assert hits[0].zk_id == ids["token"]
    assert "lexical" in {f.channel for f in hits[0].found_by}
    assert len(hits[0].preview) <= 400 and hits[0].project == project


def test_search_is_isolated_by_project(brain: Brain, search: Search, project: str) -> None:
    seed(brain, project)
    other = brain.importer.add_many([note("The connection pool is exhausted by workers.",
                                  f"{project}-other")])
    hits = search.search_memory("connection pool exhausted", project, top_k=10)
    assert hits and all(h.project == project for h in hits)
    assert other[0] not in {h.zk_id for h in hits}
    deep = search.deep_search("connection pool exhausted", project, hops=2, top_k=10)
    assert deep and all(h.project == project for h in deep)


def test_fleeting_archived_and_contextual_notes_are_excluded(brain: Brain, search: Search,
                                                             project: str) -> None:
    text = "Nightly backups of the graph run at three in the morning."
    ids = brain.importer.add_many([
        note(text, project, memory_type="fleeting"),
        note(text, project, memory_type="archived"),
        note(text, project, note_kind="session_summary"),
        note("Unrelated: the logo is blue.", project),
    ])
    found = {h.zk_id for h in search.search_memory("nightly graph backups", project)}
    assert not found & set(ids[:3])
    deep = {h.zk_id for h in search.deep_search("nightly graph backups", project)}
    assert not deep & set(ids[:3])
    with_context = search.search_memory("nightly graph backups", project, include_contextual=True)
    assert ids[2] in {h.zk_id for h in with_context}
    assert not {h.zk_id for h in with_context} & set(ids[:2])


def test_project_context_is_found_by_default(brain: Brain, search: Search,
                                            project: str) -> None:
    """What AGENTS.md tells an agent to store as a project fact is what a default search finds."""
    ids = brain.importer.add_many([
        note("The cart service's Redis listens on port 6390.", project,
             note_kind="project_context"),
        note("The cart's last handoff: Redis port moved, check the compose file.", project,
             note_kind="open_thread")])
    for found in (search.search_memory("what port does the cart Redis use?", project),
                  search.deep_search("what port does the cart Redis use?", project)):
        assert found[0].zk_id == ids[0] and ids[1] not in {h.zk_id for h in found}


def test_relevance_is_the_cosine_and_the_floor_answers_nothing(
        brain: Brain, search: Search, embedder: SentenceTransformerEmbedder,
        project: str, monkeypatch: pytest.MonkeyPatch) -> None:
    ids = seed(brain, project)
    # every word is rare among six notes: the lexical evidence, another gate, is out of the way
    monkeypatch.setattr(search_module, "RARE_WORDS", 99)
    query = "why is the connection pool exhausted?"
    hits = search.search_memory(query, project, top_k=3)
    pool = next(h for h in hits if h.zk_id == ids["pool"])
    stored = next(r["embedding"] for r in project_vectors(brain.db, project=project)
                  if r["zk_id"] == ids["pool"])
    query_vector = np.asarray(embedder.encode(query))
    expected = float(np.dot(query_vector, stored) / np.linalg.norm(query_vector)
                     / np.linalg.norm(stored))  # the cosine in [-1, 1]
    assert pool.relevance == pytest.approx(expected, abs=0.001)
    floor = max(h.relevance for h in hits) + 0.001  # above every hit: nothing relevant stored
    # both searches' floor in a project searched word by word, here not raised by words the
    # notes lack
    strict = Search(brain.deps, search.tuning, word_floor=(floor, 0.0, 0.0))
    assert strict.search_memory(query, project, top_k=3) == []
    assert strict.deep_search(query, project, top_k=3) == []
    lenient = Search(brain.deps, search.tuning, word_floor=(pool.relevance, 0.0, 0.0))
    assert ids["pool"] in {h.zk_id for h in lenient.search_memory(query, project, top_k=3)}


def test_note_kinds_filter(brain: Brain, search: Search, project: str) -> None:
    ids = brain.importer.add_many([note("Use a lease so one scheduler runs the job.", project,
                                note_kind="decision"),
                           note("Use a lease so only one worker runs the job.", project)])
    hits = search.search_memory("lease scheduler job", project, note_kinds=["decision"])
    assert [h.zk_id for h in hits] == [ids[0]]


def counted(brain: Brain) -> tuple[Search, Database]:
    """A search on a view of the database that counts its statements alone (another test's
    access stamps may be written on the database meanwhile)."""
    view = brain.db.bound()
    return Search(replace(brain.deps, db=view)), view


def test_searches_are_one_statement_and_stamp_access_after(brain: Brain, project: str) -> None:
    seed(brain, project)
    search, db = counted(brain)
    search.index_fetch.share(project)  # counted once a minute per process, not per search
    before = db.statements_run
    hits = search.search_memory("connection pool", project, top_k=3)
    assert db.statements_run - before == 1
    search.access.flush()
    notes = brain.reader.get([h.zk_id for h in hits])
    assert all(n.access_count == 1 and n.last_accessed == NOW.isoformat() for n in notes)
    before = db.statements_run
    deep = search.deep_search("connection pool", project, hops=2, top_k=3)
    assert db.statements_run - before == 1
    search.access.flush()
    assert all(n.access_count >= 1 for n in brain.reader.get([h.zk_id for h in deep]))


def test_questions_of_any_shape_send_the_same_parameter_kinds(brain: Brain,
                                                             project: str) -> None:
    """Neo4j plans a statement apart for each parameter signature (a text's or a list's size
    class among them): a question of another length, word count, identifiers or clauses
    would be planned again, seconds on a loaded server. Each hot read sends one."""
    seed(brain, project)
    texts = ("pool",
             "Why is the connection pool exhausted when QX7ZETA-4411 rotates, and which retry "
             "in src/retry_policy.py backs off, and which ports does the server pick at start?")
    assert_one_plan_key_each(brain, [(text, project) for text in texts])


def assert_one_plan_key_each(brain: Brain, asked: list[tuple[str, str]]) -> None:
    """search_memory, deep_search and preflight_check, each asked every (question, project)
    of `asked`, send their statement one parameter signature each."""
    recording = Recording(brain.db)
    deps = replace(brain.deps, db=recording)  # type: ignore[arg-type]
    search, mistakes = Search(deps), Mistakes(deps, brain.reader, brain.writer)
    calls: list[Callable[[str, str], object]] = [
        lambda text, name: search.search_memory(text, name, stamp=False),
        lambda text, name: search.deep_search(text, name, stamp=False),
        lambda text, name: mistakes.preflight_check(text, name)]
    sent: dict[str, set[Any]] = {}
    for text, name in asked:
        for call in calls:
            call(text, name)
            assert recording.last is not None
            statement, params = recording.last
            sent.setdefault(statement, set()).add(plan_key(params))
    assert set(sent) == {"search/search_memory", "search/deep_search",
                         "mistakes/preflight_mistakes"}
    assert all(len(keys) == 1 for keys in sent.values()), sent


def test_projects_of_any_name_length_send_the_same_parameter_kinds(brain: Brain,
                                                                  project: str) -> None:
    """A project's name is text: sent as a parameter of its own, one of 3 characters and one of
    40 would each have a plan (Neo4j keys text of up to 10 and of up to 100 characters apart),
    and the first search in a project of the other class would be planned again. Each hot read
    sends one set of parameter kinds whatever the project."""
    seed(brain, project)
    names = (project, project[:3], (project * 4)[:40])  # the last two hold no notes
    assert_one_plan_key_each(brain, [("connection pool", name) for name in names])


def test_deep_search_is_one_round_trip_and_says_how_each_hit_was_found(
        brain: Brain, db: Database, project: str) -> None:
    ids = seed(brain, project)
    search, counting = counted(brain)
    with db.driver.session() as session:  # a graph-only path: pool (a mistake) <- FIXES - tests
        session.run("MATCH (a:Note {zk_id: $a}), (b:Note {zk_id: $b}) "
                    "SET a.note_kind = 'mistake' "
                    "CREATE (b)-[:FIXES {reason: 'r', weight: 1.0}]->(a)",  # a recorded fix
                    a=ids["pool"], b=ids["tests"]).consume()
    search.index_fetch.share(project)
    # planned first: a server plans the statement on its first run, which took 5-9 s on the
    # 2026 line at a load of 10 on 2 cores, and past NEO4J_TIMEOUT_S the run is tried again
    search.deep_search("connection pool exhausted by workers", project, hops=2, top_k=6,
                       stamp=False)
    before = counting.statements_run
    hits = search.deep_search("connection pool exhausted by workers", project, hops=2, top_k=6)
    assert counting.statements_run - before == 1
    assert [h.zk_id for h in hits[:2]] == [ids["tests"], ids["pool"]]  # the fix just above
    assert all(h.found_by for h in hits)
    assert {f.hop for h in hits for f in h.found_by} >= {0, 1}
    graph = [f for h in hits if h.zk_id == ids["tests"] for f in h.found_by if f.channel == "link"]
    assert graph and graph[0].via == ids["pool"] and graph[0].relationship == "FIXES"
    assert {f.channel for h in hits for f in h.found_by} >= {"vector", "lexical", "link"}


def test_deep_search_blends_a_second_vector_hop_only_when_asked(
        brain: Brain, search: Search, project: str) -> None:
    # more notes than the vector channel's pool (top_k's, when larger), the added ones holding
    # no word of the question: the blended hop has notes left to find
    seed(brain, project)
    brain.importer.add_many([note(f"Release {i} of the payments service moved nightly job {i} "
                                  f"to shard {i % 7}.", project)
                             for i in range(DeepTuning().pool)])

    def blended(**hops: int) -> set[str]:
        hits = search.deep_search("connection pool exhausted", project,
                                  top_k=DeepTuning().pool, **hops)
        return {h.zk_id for h in hits for f in h.found_by if f.channel == "vector" and f.hop == 1}

    assert not blended()  # DEEP_HOPS: the question's channels and the graph step
    assert blended(hops=2)


def test_get_related_follows_depth_and_direction(brain: Brain, search: Search,
                                                 project: str) -> None:
    a, b, c, d = brain.importer.add_many([note(f"chain note {x}", project) for x in "abcd"])
    for src, dst in ((a, b), (c, b), (c, d)):  # a -> b <- c -> d
        brain.db.write_tx(lambda tx, s=src, t=dst: brain.writer.link(tx, s, t, LinkType.EXTENDS,
                                                                "because", 0.8))
    one = search.get_related(a, depth=1)
    assert [n.zk_id for n in one.nodes] == [b]
    assert [(e.src, e.dst, e.type) for e in one.edges] == [(a, b, "EXTENDS")]
    three = search.get_related(a, depth=3)
    assert {n.zk_id: n.depth for n in three.nodes} == {b: 1, c: 2, d: 3}
    assert {(e.src, e.dst) for e in three.edges} == {(a, b), (c, b), (c, d)}
    bounded = search.get_related(a, depth=3, max_nodes=2)  # the nearest two, links among them
    assert [n.zk_id for n in bounded.nodes] == sorted([b, c], key=[b, c].index)
    assert bounded.total_nodes == 3 and {(e.src, e.dst) for e in bounded.edges} == {(a, b), (c, b)}
    with pytest.raises(NotFound):
        search.get_related(new_zk_id(), depth=1)


@pytest.mark.parametrize("query", [
    'pool AND (workers OR "sessions', "title:pool~ ^2 \\ / * ? [a TO z] {x}", "NOT", "!!!",
    "-pool +workers && ||",
])
def test_lucene_syntax_in_queries_is_safe(brain: Brain, search: Search, project: str,
                                          query: str) -> None:
    seed(brain, project)
    search.search_memory(query, project)
    search.deep_search(query, project, hops=1)


def test_lucene_query_keeps_words_only() -> None:
    assert lucene_query('a AND (b OR "c') == "a and b or c"
    assert lucene_query("!!! ~ ^") == ""


def test_the_note_query_names_each_boosted_field() -> None:
    words = lucene_query("Kafka consumer lag")
    assert fielded_query(words, {"content": 1.0, "title": 0.0}) == "content:(kafka consumer lag)"
    assert fielded_query(words, {"content": 1.0, "title": 0.5}) == (
        "content:(kafka consumer lag) title:(kafka consumer lag)^0.5")
    assert fielded_query(words, {"content": 1.0, "context": 0.25}) == (
        "content:(kafka consumer lag) context:(kafka consumer lag)^0.25")
    assert fielded_query("", {"content": 1.0}) == ""


def test_the_lexical_channel_matches_a_notes_own_words_not_its_context(
        brain: Brain, project: str) -> None:
    """A word that evolution or a caller wrote into a note's keywords or context (other notes'
    words) does not make the note a lexical match; its content does, and its title at half
    weight."""
    [own, titled, borrowed] = brain.importer.add_many([
        note("Backups of the ledger run nightly to the Wexfordia bucket.", project,
             title="Nightly backups"),
        note("Quarterly invoices are archived after the audit.", project,
             title="Wexfordia invoices"),
        note("The billing job retries failed invoices twice before alerting.", project,
             title="Invoice retries", keywords=["wexfordia"],
             context="See also: the Wexfordia bucket backups.")])
    lexical_only = Search(brain.deps, Tuning(w_vec=0.0, floor=-1.0))
    found = [h.zk_id for h in lexical_only.search_memory("Wexfordia", project, top_k=5)
             if "lexical" in {f.channel for f in h.found_by}]
    assert found == [own, titled]
    every_field = Search(brain.deps, Tuning(w_vec=0.0, floor=-1.0, lex_keywords=1.0,
                                            lex_context=1.0))
    assert borrowed in {h.zk_id for h in every_field.search_memory("Wexfordia", project)
                        if "lexical" in {f.channel for f in h.found_by}}


def test_a_similarity_is_the_exact_cosine_of_the_stored_vectors(
        brain: Brain, search: Search, embedder: SentenceTransformerEmbedder,
        project: str) -> None:
    """The vector index scores quantized vectors; every candidate is scored again exactly, so
    the similarity the write path reads (and the order) is the cosine of the stored vectors."""
    ids = seed(brain, project)
    text = "Workers hold sessions across requests and exhaust the pool."
    vector = np.asarray(embedder.encode(text))
    stored = {r["zk_id"]: np.asarray(r["embedding"])
              for r in project_vectors(brain.db, project=project)}
    nearest = brain.writer.nearest(vector.tolist(), project, ["permanent"], 2, [])
    assert nearest[0]["zk_id"] == ids["pool"]
    for hit in nearest:
        want = float(vector @ stored[hit["zk_id"]]
                     / np.linalg.norm(vector) / np.linalg.norm(stored[hit["zk_id"]]))
        assert hit["similarity"] == pytest.approx(want, abs=1e-5)
    assert [h["similarity"] for h in nearest] == sorted((h["similarity"] for h in nearest),
                                                        reverse=True)


def test_a_small_project_beside_a_crowding_one_still_finds_its_notes(
        brain: Brain, search: Search, project: str) -> None:
    """The vector index cannot filter by project: 300 identical notes of a neighbouring project
    fill every index candidate list, and the small project's own notes must still be found by
    search, deep search, preflight_check and the dedup check of add_memory."""
    text = "The ingest worker drops messages when the Kafka consumer lag exceeds ten thousand."
    crowd = [note(text, f"{project}-crowd", note_kind="mistake") for _ in range(300)]
    brain.importer.add_many(crowd)
    own_text = text.replace("drops", "loses")
    # written by add_memory, as the repeat below is: the enriched context names the project,
    # so an imported note's vector would differ from the repeat's by the project's random name
    own = brain.writer.add(own_text, project, note_kind="mistake").note.zk_id
    assert [h.zk_id for h in search.search_memory(text, project, top_k=3)] == [own]
    assert [h.zk_id for h in search.deep_search(text, project, top_k=3)] == [own]
    assert [m.zk_id for m in brain.mistakes.preflight_check(text, project).mistakes] == [own]
    added = brain.writer.add(own_text, project, note_kind="mistake")  # the same note again
    assert added.deduplicated and added.matched_zk_id == own


def test_the_word_index_matches_a_query_word_as_written_the_stemmed_one_its_stem(
        brain: Brain, db: Database, project: str) -> None:
    """`generation` meets `generates` in the stemmed index and only `generation` in the index
    of words as written: the searches ask both, so the note holding the query's own word form
    scores above a look-alike holding another form of its stem."""
    own, other = brain.importer.add_many([
        note("Schema generation runs before each deploy.", project),
        note("The deploy generates a fresh schema file.", project)])
    query = in_project(fielded_query("generation", {"content": 1.0}), project)

    def found(index: str) -> set[str]:
        return {h["zk_id"] for h in ranking_lexical(db, index=index, lex=query, limit=10,
                                                    project=project)}

    assert found(FULLTEXT_INDEX) == {own, other}
    assert found(WORD_INDEX) == {own}


def test_a_small_projects_full_text_match_is_not_lost_beside_a_crowding_one(
        brain: Brain, db: Database, search: Search, project: str) -> None:
    """300 notes of a neighbouring project hold the query's words: the index keeps to the
    project, so its few candidates are the small project's note, found by the lexical channel
    though its meaning is elsewhere."""
    crowd = [note(f"Vendored zephyrine shim number {n} pins the zephyrine codec.",
                  f"{project}crowd") for n in range(300)]  # not "<project>-crowd": see in_project
    brain.importer.add_many(crowd)
    own = brain.importer.add_many([note("Our zephyrine codec settings live in the ops wiki.",
                                        project)])[0]
    query = fielded_query(lucene_query("zephyrine codec"), {"content": 1.0})
    assert [h["zk_id"] for h in raw_fulltext_query(db, lex=in_project(query, project), k=5)] \
        == [own]
    assert [h["zk_id"] for h in raw_fulltext_query(db, lex=query, k=5)] != [own]
    hits = search.search_memory("zephyrine codec", project, top_k=3)
    assert hits[0].zk_id == own and "lexical" in {f.channel for f in hits[0].found_by}


def _found(hits: list[Any], zk_id: str) -> list[Any]:
    return next((h.found_by for h in hits if h.zk_id == zk_id), [])


def test_deep_search_follows_an_entity_the_question_names(brain: Brain, search: Search,
                                                          project: str) -> None:
    """The question names an entity a note mentions in passing: the entity channel finds it."""
    target = brain.writer.add("Deploys wait for the cutover script scripts/cutover.sh to finish "
                              "before traffic moves.", project).note.zk_id
    for n in range(6):
        brain.writer.add(f"Deploy step {n}: traffic moves to the new pods once their health "
                         f"checks pass for {n + 2} minutes.", project)
    hits = search.deep_search("what does scripts/cutover.sh do", project, top_k=5)
    assert hits[0].zk_id == target
    assert any(f.channel == "entity" and f.entity == "scripts/cutover.sh"
               for f in _found(hits, target))


def _billing(brain: Brain, project: str) -> tuple[str, str]:
    """Two notes that share only the entity LedgerKit, among look-alikes of the first."""
    first = brain.writer.add("The billing service calls Stripe through the LedgerKit client.",
                             project).note.zk_id
    second = brain.writer.add("LedgerKit 4.2 needs Python 3.11 or newer and drops the sync API.",
                              project).note.zk_id
    for n in range(6):
        brain.writer.add(f"The billing service sends invoice emails in batches of {n + 5}0 "
                         "through the mail relay.", project)
    return first, second


BILLING_QUESTION = "which Python does the billing service need for Stripe?"


def test_deep_search_bridges_to_a_note_sharing_a_rare_entity(brain: Brain,
                                                            project: str) -> None:
    """A second note needed by the question shares an entity with the first, not its words."""
    first, second = _billing(brain, project)
    # the second note is also written just after the first: the session order would lift it
    # too (tests/integration/test_session_order.py); here the bridge alone
    alone = Search(brain.deps, deep_tuning=DeepTuning(session_after=0.0, session_before=0.0))
    hits = alone.deep_search(BILLING_QUESTION, project, top_k=8)
    assert first in [h.zk_id for h in hits] and second in [h.zk_id for h in hits]
    bridged = [f for f in _found(hits, second) if f.channel == "bridge"]
    assert bridged and bridged[0].via == first and bridged[0].entity.lower() == "ledgerkit"


def test_the_bridge_keeps_the_best_live_notes_equal_weights_by_id(brain: Brain,
                                                                  project: str) -> None:
    """From a found note the bridge keeps nb_limit notes: the most weighted by the entities
    they share with it, equal weights by id, never an archived note or one of a kind the search
    leaves out, even when those share more with it."""
    first, second = _billing(brain, project)
    live = brain.importer.add_many([
        note("The reconciler pins LedgerKit to avoid a breaking change.", project),
        note("The audit export reads balances from LedgerKit nightly.", project)])
    brain.importer.add_many([  # Stripe and LedgerKit both: above the others, were they kept
        note("Stripe webhooks reached LedgerKit before the reporting job was retired.", project,
             memory_type="archived"),
        note("Stripe payouts through LedgerKit still need a retry.", project,
             note_kind="open_thread")])
    bridging = Search(brain.deps, deep_tuning=DeepTuning(nb_limit=2, session_after=0.0,
                                                         session_before=0.0))
    hits = bridging.deep_search(BILLING_QUESTION, project, top_k=20)
    bridged = {h.zk_id for h in hits for f in h.found_by if f.channel == "bridge"
               and f.via == first}
    assert bridged == set(sorted([second, *live])[:2])


def test_an_entity_in_more_notes_than_the_ceiling_leads_nowhere(brain: Brain,
                                                               project: str) -> None:
    """The ceiling bounds the graph step's work however large a project grows."""
    _billing(brain, project)
    capped = Search(brain.deps, deep_tuning=DeepTuning(ent_ceiling=1))
    hits = capped.deep_search(BILLING_QUESTION, project, top_k=8)
    assert not [f for h in hits for f in h.found_by
                if f.channel == "bridge" or (f.entity or "").lower() == "ledgerkit"]


def test_a_mistake_brings_up_its_fix_and_a_superseded_note_yields(brain: Brain, search: Search,
                                                                 project: str) -> None:
    mistake = brain.writer.add("The nightly export crashed with MemoryError while building the "
                               "CSV in memory.", project, note_kind="mistake").note.zk_id
    fix = brain.writer.add("Streaming rows to disk with csv.writer keeps the exporter's memory "
                           "flat.", project, note_kind="fix").note.zk_id
    old = brain.writer.add("The export API listens on port 8001.", project).note.zk_id
    new = brain.writer.add("The export API moved to a new listener.", project).note.zk_id
    brain.db.write_tx(lambda tx: (brain.writer.link(tx, fix, mistake, LinkType.FIXES, "r"),
                                  brain.writer.link(tx, new, old, LinkType.SUPERSEDES, "r")))
    hits = search.deep_search("nightly export crashed with MemoryError", project, top_k=5)
    ranked = [h.zk_id for h in hits]
    assert ranked.index(fix) < 3
    assert any(f.channel == "link" and f.relationship == "FIXES" and f.via == mistake
               for f in _found(hits, fix))
    for found in (search.deep_search("which port does the export API listen on", project),
                  search.search_memory("which port does the export API listen on", project)):
        ids = [h.zk_id for h in found]
        assert new in ids and (old not in ids or ids.index(new) < ids.index(old))


def test_asked_for_history_the_successor_yields_to_the_note_it_superseded(
        brain: Brain, search: Search, project: str) -> None:
    # the supersede step read in the other direction: an asserted SUPERSEDES link, then a
    # question for the earlier value
    old = brain.writer.add("The export API listens on port 8001.", project).note.zk_id
    new = brain.writer.add("The export API moved to a new listener.", project).note.zk_id
    brain.db.write_tx(lambda tx: brain.writer.link(tx, new, old, LinkType.SUPERSEDES, "r"))
    strict = Search(brain.deps, replace(search.tuning, superseded=0.1, supersede_share=0.0))
    ids = [h.zk_id for h in strict.search_memory(
        "which port did the export API listen on before", project)]
    assert old in ids and (new not in ids or ids.index(old) < ids.index(new))


def test_a_hit_shows_its_first_three_links_and_counts_them_all(brain: Brain, search: Search,
                                                               project: str) -> None:
    ids = seed(brain, project)
    hub, others = ids["pool"], [ids[k] for k in ("retry", "token", "cache", "ports", "tests")]

    def linked(tx: Any) -> None:
        brain.writer.link(tx, hub, others[0], LinkType.RELATES_TO, "r", weight=0.9)
        brain.writer.link(tx, others[1], hub, LinkType.SUPPORTS, "r", weight=0.5)
        brain.writer.link(tx, hub, others[2], LinkType.EXTENDS, "r", weight=0.8)
        brain.writer.link(tx, hub, others[3], LinkType.RELATES_TO, "r", weight=0.4)
        brain.writer.link(tx, others[4], hub, LinkType.CAUSED_BY, "r", weight=0.3)

    brain.db.write_tx(linked)
    hit = next(h for h in search.search_memory("connection pool exhausted by workers", project)
               if h.zk_id == hub)
    assert hit.link_count == 5
    # typed links first (heaviest first), then RELATES_TO
    assert [(link.zk_id, link.type, link.direction) for link in hit.links] == [
        (others[2], "EXTENDS", "out"), (others[1], "SUPPORTS", "in"),
        (others[4], "CAUSED_BY", "in")]


def test_a_note_the_write_path_linked_as_superseded_keeps_its_place(brain: Brain, search: Search,
                                                                    project: str) -> None:
    # the pair above, linked by the write path (origin auto): it links a note of several facts
    # to a later note changing one of them, so the link alone demotes nothing, however much an
    # asserted one would
    old = brain.writer.add("The export API listens on port 8001.", project).note.zk_id
    new = brain.writer.add("The export API moved to a new listener.", project).note.zk_id
    brain.db.write_tx(lambda tx: brain.writer.link(tx, new, old, LinkType.SUPERSEDES,
                                                   "changes port", origin="auto"))
    strict = Search(brain.deps, replace(search.tuning, superseded=0.1, supersede_share=0.0),
                    replace(search.deep_tuning, superseded=0.1, supersede_share=0.0))
    for found in (strict.deep_search("which port does the export API listen on", project),
                  strict.search_memory("which port does the export API listen on", project)):
        assert found[0].zk_id == old


def test_a_symptom_question_gets_the_fix_above_the_mistake_it_words(brain: Brain,
                                                                    search: Search,
                                                                    project: str) -> None:
    failed = brain.mistakes.record_failure(
        "The invoice worker crashed: psycopg.OperationalError: SSL SYSCALL error: EOF detected "
        "while the nightly batch was running.", project)
    fixed = brain.mistakes.record_resolution(
        failed.zk_id, "Idle connections are now recycled after 300 s and pinged before use, "
        "so the load balancer no longer drops them mid-batch.", project)
    brain.writer.add("The invoice worker posts a summary of the nightly batch to #billing.",
                     project)
    query = "invoice worker crashed with SSL SYSCALL error EOF detected, what did we do?"
    off = Search(brain.deps, replace(search.tuning, fix_lift=0.0),
                 replace(search.deep_tuning, fix_lift=0.0))
    assert off.search_memory(query, project)[0].zk_id == failed.zk_id  # the words of the failure
    for hits in (search.search_memory(query, project), search.deep_search(query, project)):
        ranked = [h.zk_id for h in hits]
        assert ranked[:2] == [fixed.fix_zk_id, failed.zk_id]
        assert any(f.channel == "link" and f.relationship == "FIXES" and f.via == failed.zk_id
                   for f in _found(hits, fixed.fix_zk_id))


def test_the_recorded_fix_ranks_above_one_the_write_path_inferred(brain: Brain, search: Search,
                                                                  project: str) -> None:
    failed = brain.mistakes.record_failure(
        "The label printer job died: ZPL buffer overflow while printing 400 labels at once.",
        project)
    fixed = brain.mistakes.record_resolution(
        failed.zk_id, "Batches of 50 labels per job keep the printer's buffer from overflowing.",
        project)
    inferred = brain.writer.add("Label jobs retry twice when the printer answers busy.",
                                project, note_kind="fix").note.zk_id
    brain.db.write_tx(lambda tx: brain.writer.link(tx, inferred, failed.zk_id, LinkType.FIXES,
                                                   "resolves this problem", weight=0.6,
                                                   origin="auto"))
    query = "label printer job died with a ZPL buffer overflow"
    for hits in (search.search_memory(query, project), search.deep_search(query, project)):
        ranked = [h.zk_id for h in hits]
        assert ranked[:2] == [fixed.fix_zk_id, failed.zk_id]
        assert ranked.index(failed.zk_id) < ranked.index(inferred)


def test_a_query_naming_an_identifier_gets_the_note_holding_it_above_its_fix(
        brain: Brain, search: Search, project: str) -> None:
    failed = brain.mistakes.record_failure(
        "Incident OPS-4821: the nightly backup stalled for three hours on the archive volume.",
        project)
    fixed = brain.mistakes.record_resolution(
        failed.zk_id, "Backups write to the fast volume first and are moved to the archive "
        "volume afterwards.", project)
    symptom = "the nightly backup stalled for hours on the archive volume during OPS-4821, " \
              "what did we change?"
    for run in (search.search_memory, search.deep_search):
        for query in ("OPS-4821", "what was OPS-4821 about?"):
            ranked = [h.zk_id for h in run(query, project)]
            assert ranked[:2] == [failed.zk_id, fixed.fix_zk_id]
        assert run(symptom, project)[0].zk_id == fixed.fix_zk_id


def test_a_hit_holding_rare_words_of_the_query_is_relevant_whatever_its_cosine(
        brain: Brain, search: Search, project: str) -> None:
    """RARE_WORDS (3) words of the query that at most RARE_SHARE of the project's notes hold,
    held by one note, make it relevant in both searches with no cosine reaching the floor;
    two such words, or three words most of the project's notes hold, do not."""
    brain.importer.add_many([note(f"Harbour service {n} answers on port {8000 + n} behind the "
                                  "gateway.", project) for n in range(30)])
    target = brain.importer.add_many([note(
        "The quokka exporter writes zephyr metrics to the obsidian bucket behind the gateway.",
        project)])[0]
    no_cosine = Search(brain.deps, search.tuning, word_floor=(1.01, 0.0, 0.0))
    for run in (no_cosine.search_memory, no_cosine.deep_search):
        assert run("quokka zephyr obsidian", project)[0].zk_id == target
        assert run("quokka zephyr harbour", project) == []
        assert run("harbour service gateway", project) == []


def test_a_content_word_no_note_of_the_project_holds_raises_the_floor(
        brain: Brain, project: str) -> None:
    brain.importer.add_many([note(f"Harbour service {n} answers on port {8000 + n} behind the "
                                  "gateway.", project) for n in range(5)])
    # one unknown word: past any cosine, in both searches
    search = Search(brain.deps, word_floor=(-1.0, 2.0, 0.0))
    for run in (search.search_memory, search.deep_search):
        assert run("which port does harbour service 3 answer on?", project)
        assert run("which port does the kafka gateway answer on?", project) == []
        # the question's own words are no content words: known or not, no step
        assert run("how did we get the port of the gateway?", project)


def test_deep_search_answers_what_search_memory_answers_below_the_cosine_of_a_large_project(
        brain: Brain, search: Search, project: str) -> None:
    """A note holding every content word of the question is relevant from the word-by-word
    floor (KNOWN_FLOOR), under the cosine a large project's hit must reach (Tuning.floor), and
    with two rare words of the question, not RARE_WORDS: deep_search answers it as
    search_memory does, and answers nothing when the question names things no note holds."""
    brain.importer.add_many([note(f"Harbour service {n} answers on port {8000 + n} behind the "
                                  "gateway and renews its certificate every month.", project)
                             for n in range(5)])
    held = brain.importer.add_many([note(
        "Sprint retro: flaky CI on payments, staging disk full, on-call rota swapped, Grafana "
        "dashboards migrated, Terraform state unlocked; kestrel lease renew.", project)])[0]
    for run in (search.search_memory, search.deep_search):
        hits = run("when does the kestrel lease renew?", project, top_k=3)
        assert hits[0].zk_id == held and hits[0].relevance < search.tuning.floor
        assert run("when does the osprey charter expire?", project, top_k=3) == []


def test_a_hit_lacking_a_word_of_the_query_other_notes_hold_has_a_higher_floor(
        brain: Brain, search: Search, project: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # every word is rare among six notes: the lexical evidence, another gate, is out of the way
    monkeypatch.setattr(search_module, "RARE_WORDS", 99)
    brain.importer.add_many([note(f"Harbour service {n} answers on port {8000 + n}.", project)
                             for n in range(5)])
    target = brain.importer.add_many([note(
        "The quokka exporter writes its metrics to the cold bucket.", project)])[0]
    # a hit holding every known content word passes from -0.5; each one it lacks adds 2
    strict = Search(brain.deps, search.tuning, word_floor=(-0.5, 0.0, 2.0))
    assert strict.search_memory("quokka exporter bucket", project)[0].zk_id == target
    assert strict.search_memory("quokka exporter harbour", project) == []
    # a word no note holds is unknown, not lacked (UNKNOWN_STEP's, here 0)
    assert strict.search_memory("quokka exporter zeppelin", project)[0].zk_id == target
    lenient = Search(brain.deps, search.tuning, word_floor=(-0.5, 0.0, 0.0))
    assert lenient.search_memory("quokka exporter harbour", project)


def kestrel_and_harbours(brain: Brain, project: str) -> tuple[str, list[str]]:
    """"kestrel" in one note of `project` and in 300 of a neighbouring one, "harbour" in 20
    notes of `project` only: the note holding "kestrel" and those holding "harbour"."""
    brain.importer.add_many([note(f"Kestrel relay shim number {n} keeps its own queue.",
                                  f"{project}crowd") for n in range(300)])
    rare = brain.importer.add_many([note("Kestrel writes the nightly export to cold storage.",
                                         project)])[0]
    harbour = brain.importer.add_many([note(f"Harbour service {n} answers on port {8000 + n}.",
                                            project) for n in range(20)])
    return rare, harbour


def test_a_word_weighs_by_its_rarity_in_the_project_searched(
        brain: Brain, db: Database, search: Search, project: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """"kestrel" is in one note of this project and in 300 of a neighbouring one, "harbour" in
    20 notes of this project only: searched here, "kestrel" is the rare word and its note comes
    first, though the note index's own (database-wide) BM25 weighs "harbour" above it."""
    rare, harbour = kestrel_and_harbours(brain, project)
    query = lucene_query("kestrel harbour")
    wide = raw_fulltext_query(db, lex=in_project(fielded_query(query, {"content": 1.0}), project),
                              k=3)
    assert wide and wide[0]["zk_id"] != rare  # database-wide idf: "harbour" weighs more
    lexical = Search(brain.deps, replace(search.tuning, w_vec=0.0, w_exact=0.0, floor=-1.0,
                                         lex_title=0.0, same_n=0))
    hits = lexical.search_memory("kestrel harbour", project, top_k=3)
    assert hits[0].zk_id == rare and "lexical" in {f.channel for f in hits[0].found_by}
    # a project of more notes than OWN_IDF_MAX is searched by the whole query, scored as the
    # index scores it: "harbour" weighs more again
    monkeypatch.setattr(search_module, "OWN_IDF_MAX", 10)
    assert lexical.search_memory("kestrel harbour", project, top_k=3)[0].zk_id in harbour


def test_deep_search_weighs_a_word_by_its_rarity_in_the_project_searched(
        brain: Brain, search: Search, project: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """deep_search's lexical channel is search_memory's: "kestrel", rare in this project though
    common in the database, brings its note first; a project of more notes than OWN_IDF_MAX is
    scored as the note index scores it, and "harbour" weighs more again."""
    rare, harbour = kestrel_and_harbours(brain, project)
    lexical = Search(brain.deps, replace(search.tuning, lex_title=0.0), DeepTuning(
        w_vec=0.0, w_exact=0.0, w_ent=0.0, w_bridge=0.0, w_fix=0.0, w_link=0.0, floor=-1.0,
        session_after=0.0, session_before=0.0, fix_lift=0.0, same_n=0),
        word_floor=(-1.0, 0.0, 0.0))
    hits = lexical.deep_search("kestrel harbour", project, hops=1, top_k=3)
    assert hits[0].zk_id == rare and "lexical" in {f.channel for f in hits[0].found_by}
    monkeypatch.setattr(search_module, "OWN_IDF_MAX", 10)
    assert lexical.deep_search("kestrel harbour", project, hops=1, top_k=3)[0].zk_id in harbour


def test_deep_search_gives_a_top_place_to_a_close_hit_over_a_far_session_neighbour(
        brain: Brain, search: Search, project: str) -> None:
    """A note written just after a found one in its session is lifted by it whatever it says
    (here half the best hit's score, just above the third close note's): among the best 3, a
    hit far from the query (cosine more than NEAR_GAP below the closest) yields its place to
    a close one further down and scores just below it."""
    write = brain.writer.add
    bucket = write("Generated files are kept in the S3 bucket acme-report-files for 30 days.",
                   project, session_id="window-a").note.zk_id
    far = write("Standup moved to 10:30 on Mondays, and the Tuesday demo is cancelled this "
                "month.", project, session_id="window-a").note.zk_id
    export = write("The reports service produces CSV exports with a server-side cursor; it also "
                   "renders the weekly PDF digest and owns the admin pages.", project,
                   session_id="window-b").note.zk_id
    close = write("The CSV exports are gzip-compressed before the upload.", project,
                  session_id="window-c").note.zk_id
    for n, text in enumerate(["The mobile app caches avatars for a week.",
                              "Grafana dashboards live in the ops folder.",
                              "Feature flags are read from LaunchDarkly at start."]):
        write(text, project, session_id=f"window-f{n}")
    query = ("reports service CSV exports: how are they made, and which S3 bucket keeps the "
             "finished files and for how long?")
    hits = search.deep_search(query, project, top_k=5)
    ids = [h.zk_id for h in hits]
    assert set(ids[:3]) == {bucket, export, close}
    assert far in ids[3:]
    lifted = next(h for h in hits if h.zk_id == far)
    assert "session" in {f.channel for f in lifted.found_by}
    closest = max(h.relevance for h in hits[:search_module.NEAR_OF])
    assert lifted.relevance < closest - search_module.NEAR_GAP
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_deep_search_gives_a_top_place_to_the_closest_candidate_the_lexical_channel_buries(
        brain: Brain, search: Search, project: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Notes sharing the query's words but about something else fill the best places; the
    note closest in meaning shares none of them, so fusion ranks it below them all. The close
    hits first step reads the closest candidate besides the best NEAR_OF, and gives it one of
    the best places. Imported with their titles, the notes' vectors encode their words alone:
    an enriched note's context names its project, and the test's random project name moved the
    close note's cosine to the query from 0.45 to 0.51, about the relevance floor (0.46), below
    which, with no other hit above it, deep_search answers nothing stored (0.55 here)."""
    close, *_ = brain.importer.add_many([note(text, project) for text in [
        "Session tokens refresh silently in the background, so an idle page never loses its "
        "login.",
        "The nightly ETL job sleeps 30 seconds between retries of the signed S3 upload for "
        "finance users.",
        "The tab-separated export lists signed contracts per region for the finance users.",
        "The CSV importer treats a tab as the separator and skips unsigned rows; browser "
        "uploads stay in S3.",
        "Signed PDF invoices stay in the archive bucket for seven years; finance users "
        "export them as tab-separated files.",
        "The cron runner sleeps between batches; signed webhooks from the payment provider "
        "stay queued in Redis.",
        "Browser users signed up for the data export stay on the waitlist tab until "
        "finance approves."]])
    query = "how do browser users stay signed in when the tab sleeps"
    hits = search.deep_search(query, project, top_k=5)
    assert close in [h.zk_id for h in hits][:3], [h.title for h in hits]
    assert max(h.relevance for h in hits) == next(h.relevance for h in hits if h.zk_id == close)
    monkeypatch.setattr(search_module, "NEAR_REACH", 0)  # the best NEAR_OF alone
    without = search.deep_search(query, project, top_k=5)
    assert close not in [h.zk_id for h in without][:3], [h.title for h in without]


def test_deep_search_gives_a_top_place_to_the_closest_hit_of_each_clause(
        brain: Brain, search: Search, project: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A question asking two things: notes sharing the first clause's words fill the best
    places, so the note answering the second clause gets one only through its clause."""
    write = brain.writer.add
    port = write("The payments service listens on port 8443 behind the gateway.", project,
                 session_id="window-a").note.zk_id
    for n, text in enumerate([
            "The payments service health check calls port 8443 every 10 seconds.",
            "The payments service exports its metrics on port 9464.",
            "The payments service admin pages listen on port 8444.",
            "The payments service gRPC reflection port is 8445 in staging."]):
        write(text, project, session_id=f"window-p{n}")
    owner = write("Who reviews payments changes: Priya Raman signs off every merge request.",
                  project, session_id="window-b").note.zk_id
    for n, text in enumerate(["The mobile app caches avatars for a week.",
                              "Grafana dashboards live in the ops folder."]):
        write(text, project, session_id=f"window-f{n}")
    query = "payments service: which port does it listen on, and who reviews its changes?"
    hits = search.deep_search(query, project, top_k=5)
    ids = [h.zk_id for h in hits]
    assert port in ids[:3] and owner in ids[:3], [h.title for h in hits]
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    monkeypatch.setattr(search_module, "CLAUSE_OF", 0)  # no clause takes a place
    without = search.deep_search(query, project, top_k=5)
    assert owner not in [h.zk_id for h in without][:3], [h.title for h in without]


def test_search_memory_gives_a_top_place_to_the_closest_hit_of_each_clause(
        brain: Brain, search: Search, project: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """As deep_search: notes sharing the first clause's words fill the best places of a
    question asking two things, and the note answering the second clause gets one through its
    clause."""
    texts = [f"The payments service {what}." for what in [
        "listens on port 8443 behind the gateway",
        "health check calls port 8443 every 10 seconds",
        "exports its metrics on port 9464", "admin pages listen on port 8444",
        "gRPC reflection port is 8445 in staging",
        "listens on port 8446 for its debug endpoints",
        "canary listens on port 8447 during a rollout"]] + [
        "Priya Raman reviews every merge request before it ships.",
        "The mobile app caches avatars for a week.", "Grafana dashboards live in the ops folder."]
    owner = [brain.writer.add(text, project, session_id=f"window-{n}").note.zk_id
             for n, text in enumerate(texts)][7]
    query = "which port does the payments service listen on, and who reviews its changes?"
    monkeypatch.setattr(search_module, "CLAUSE_OF", 0)  # no clause takes a place
    without = [h.zk_id for h in search.search_memory(query, project, top_k=5)]
    assert owner not in without[:3], without
    monkeypatch.undo()
    hits = search.search_memory(query, project, top_k=5)
    ids = [h.zk_id for h in hits]
    assert ids[0] == without[0] and owner in ids[:3], [h.title for h in hits]
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_deep_search_gives_the_third_place_to_the_note_sharing_the_first_hits_rare_entities(
        brain: Brain, search: Search, project: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A second note the question needs names the first hit's host, variable and script in
    other words; notes sharing the question's words rank above it, and the bridge gives it
    the third place."""
    first, second = brain.importer.add_many([
        note("The invoice worker connects through pgb.ledger.internal using LEDGER_POOL_DSN "
             "and runs scripts/reconcile.py nightly.", project),
        note("Rotating the password: update LEDGER_POOL_DSN, reload pgb.ledger.internal, then "
             "rerun scripts/reconcile.py by hand.", project)])
    brain.importer.add_many(
        [note(f"The invoice worker retries a failed invoice email {n + 2} times before it "
              "gives up.", project) for n in range(5)]
        + [note(f"Team note {n}: the {topic} dashboard refreshes every {n + 3} minutes.",
                project) for n, topic in enumerate(
                    ["latency", "signup", "billing", "search", "mobile", "warehouse",
                     "payments", "queue", "cache", "email", "storage", "auth", "export",
                     "import", "release", "support", "pricing", "audit", "backup", "feature",
                     "traffic", "error", "cost", "growth", "uptime"])])
    query = "which host and DSN does the invoice worker connect through?"
    monkeypatch.setattr(search_module, "BRIDGE_AT", 0)  # no bridge takes a place
    without = [h.zk_id for h in search.deep_search(query, project, top_k=5)]
    assert without[0] == first and second not in without[:3], without
    monkeypatch.undo()
    hits = search.deep_search(query, project, top_k=5)
    assert [h.zk_id for h in hits][:3] == [*without[:2], second]
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    bridged = [f for f in _found(hits, second) if f.channel == "bridge" and f.via == first]
    assert bridged and bridged[0].relationship == "MENTIONS"


def test_deep_search_gives_a_place_in_the_best_ten_to_a_hit_unlike_those_above_it(
        brain: Brain, search: Search, project: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Look-alikes of one answer fill the best ten; another note about the same thing ranks
    below them and gets a place among the ten, asked for with the others, only as unlike the
    hits above it. The best DIVERSE_FROM places do not move."""
    write = brain.importer.add_many
    write([note(f"The export job retries a failed upload to the archive bucket {n + 2} times, "
                f"waiting {n + 1} seconds between upload retries.", project)
           for n in range(14)])
    other = write([note("Whose key the export job signs a failed upload to the archive bucket "
                        "with: a token scoped to uploads, renewed monthly.", project)])[0]
    write([note(f"Team note {n}: the {topic} dashboard refreshes every {n + 3} minutes.",
                project) for n, topic in enumerate(
                    ["latency", "signup", "billing", "search", "mobile", "warehouse"])])
    query = "export job: what retries follow a failed upload to the archive bucket?"
    assert asks_for_many(query)
    monkeypatch.setattr(search_module, "DIVERSE_HEAD", 0)  # no unlike hit takes a place
    without = [h.zk_id for h in search.deep_search(query, project, top_k=20)]
    assert other not in without[:10] and other in without, without
    monkeypatch.undo()
    hits = search.deep_search(query, project, top_k=20)
    ids = [h.zk_id for h in hits]
    assert other in ids[:10] and ids[:search_module.DIVERSE_FROM] == without[
        :search_module.DIVERSE_FROM], ids
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
