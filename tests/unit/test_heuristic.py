"""The offline enricher: titles, key phrases, tags, link rules, evolution, synthesis, splitting."""

from __future__ import annotations

import pytest

from kg_brain.base.errors import InvalidInput
from kg_brain.base.vocab import LinkType
from kg_brain.enrichment.llm.heuristic import HeuristicEnricher, make_title
from kg_brain.enrichment.llm.types import Candidate, NoteDraft

MISTAKE = (
    "When the Neo4j vector index is queried with `db.index.vector.queryNodes` before the index "
    "is ONLINE, the call fails with ProcedureCallFailed. We now wait for SHOW INDEXES to report "
    "ONLINE in `db.py` bootstrap_schema() before serving requests, because the MCP server "
    "otherwise returns errors on the first search_memory call."
)


@pytest.fixture()
def enricher() -> HeuristicEnricher:
    return HeuristicEnricher(min_similarity=0.45)


def cand(zk_id: str, content: str, kind: str, similarity: float, title: str = "") -> Candidate:
    return Candidate(zk_id=zk_id, title=title or make_title(content), content=content,
                     note_kind=kind, similarity=similarity)


# --- enrich ------------------------------------------------------------------------------------


def test_title_is_first_claim_without_markdown_or_filler() -> None:
    content = "Note: **Always** pin `httpx` below 1.0. The 1.0 betas changed the transport API."
    assert make_title(content) == "Always pin httpx below 1.0"


def test_title_uses_heading_and_skips_code_fences() -> None:
    content = "```bash\nuv sync\n```\n## Use uv for installs\nIt is faster than pip."
    assert make_title(content) == "Use uv for installs"


def test_long_title_is_cut_at_a_boundary_within_the_limit() -> None:
    title = make_title(MISTAKE)
    assert len(title) <= 100
    assert MISTAKE.replace("`", "").startswith(title)
    assert title.endswith("ONLINE")


def test_keywords_favour_identifiers_and_stay_within_bounds(enricher: HeuristicEnricher) -> None:
    result = enricher.enrich(MISTAKE, "mistake", "kg-brain")
    assert 5 <= len(result.keywords) <= 10
    assert "ProcedureCallFailed" in result.keywords
    assert "bootstrap_schema" in result.keywords or "search_memory" in result.keywords
    lowered = [k.lower() for k in result.keywords]
    assert len(set(lowered)) == len(lowered)
    assert not {"the", "when", "before", "because"} & set(lowered)


def test_enrich_is_deterministic(enricher: HeuristicEnricher) -> None:
    first = enricher.enrich(MISTAKE, "mistake", "kg-brain")
    assert enricher.enrich(MISTAKE, "mistake", "kg-brain") == first


def test_tags_start_with_kind_and_project_then_topics(enricher: HeuristicEnricher) -> None:
    tags = enricher.enrich(MISTAKE, "mistake", "kg-brain").tags
    assert 2 <= len(tags) <= 5
    assert tags[:2] == ["mistake", "kg-brain"]
    assert "neo4j" in tags


def test_tags_have_two_entries_even_for_a_bare_general_note(enricher: HeuristicEnricher) -> None:
    tags = enricher.enrich("Lunch menus rotate weekly.", "general", "general").tags
    assert len(tags) >= 2 and tags[0] == "general"


@pytest.mark.parametrize(
    ("kind", "opening"),
    [("mistake", "Records a failure to avoid repeating"), ("decision", "Records the decision"),
     ("fix", "Records a verified fix"), ("pattern", "Records a reusable pattern")],
)
def test_context_says_why_by_kind_and_names_keywords(
    enricher: HeuristicEnricher, kind: str, opening: str
) -> None:
    result = enricher.enrich(MISTAKE, kind, "kg-brain")
    assert result.context.startswith(opening)
    assert result.keywords[0] in result.context
    assert "kg-brain" in result.context


# --- links -------------------------------------------------------------------------------------


def test_fix_links_fixes_to_a_mistake(enricher: HeuristicEnricher) -> None:
    note = NoteDraft(title="Wait for ONLINE index", content="Poll SHOW INDEXES until ONLINE.",
                     note_kind="fix")
    [link] = enricher.decide_links(note, [cand("ZK-1", MISTAKE, "mistake", 0.71)])
    assert (link.zk_id, link.link_type, link.weight) == ("ZK-1", LinkType.FIXES, 0.71)


def test_a_changed_value_supersedes_and_a_near_copy_does_not(
    enricher: HeuristicEnricher,
) -> None:
    note = NoteDraft(title="t", content="CI now installs with uv 0.5.", note_kind="pattern")
    [link] = enricher.decide_links(note, [cand("ZK-2", "CI installs with uv 0.4.", "pattern",
                                               0.93)])
    assert link.link_type == LinkType.SUPERSEDES
    same = NoteDraft(title="t", content="CI installs with uv 0.4 again.", note_kind="pattern")
    [link] = enricher.decide_links(same, [cand("ZK-2", "CI installs with uv 0.4.", "pattern",
                                               0.95)])
    assert link.link_type != LinkType.SUPERSEDES


def test_negated_stance_on_shared_terms_contradicts(enricher: HeuristicEnricher) -> None:
    note = NoteDraft(title="t", content="Do not use requests for outbound HTTP; use httpx instead.",
                     note_kind="general")
    old = cand("ZK-3", "Use requests for outbound HTTP calls.", "general", 0.74)
    [link] = enricher.decide_links(note, [old])
    assert link.link_type == LinkType.CONTRADICTS
    assert "request" in link.reason


def test_negation_on_both_sides_is_not_a_contradiction(enricher: HeuristicEnricher) -> None:
    note = NoteDraft(title="t", content="Never commit the .env file.", note_kind="general")
    old = cand("ZK-4", "Do not commit the .env file to git.", "general", 0.8)
    [link] = enricher.decide_links(note, [old])
    assert link.link_type != LinkType.CONTRADICTS


def test_cause_cue_naming_the_candidate_is_caused_by(enricher: HeuristicEnricher) -> None:
    note = NoteDraft(title="t", content="Searches time out because the connection pool is "
                     "exhausted.", note_kind="mistake")
    old = cand("ZK-5", "The connection pool holds ten sessions by default.", "research", 0.6,
               title="Connection pool size defaults to ten")
    [link] = enricher.decide_links(note, [old])
    assert link.link_type == LinkType.CAUSED_BY


def test_evidence_for_a_decision_supports_it(enricher: HeuristicEnricher) -> None:
    note = NoteDraft(title="t", content="Benchmarks show Neo4j full-text search answers in 4 ms.",
                     note_kind="research")
    old = cand("ZK-6", "We use Neo4j full-text indexes for lexical search.", "decision", 0.66)
    [link] = enricher.decide_links(note, [old])
    assert link.link_type == LinkType.SUPPORTS


def test_detailed_note_extends_a_general_one(enricher: HeuristicEnricher) -> None:
    note = NoteDraft(title="t", content="Scheduler jobs take a lease node in Neo4j with an expiry "
                     "so that two server processes never run the same job; the lease is renewed "
                     "every minute.", note_kind="general")
    old = cand("ZK-7", "Scheduler jobs take a lease in Neo4j.", "general", 0.7)
    [link] = enricher.decide_links(note, [old])
    assert link.link_type == LinkType.EXTENDS


def test_similar_note_without_cues_relates_and_floor_filters(enricher: HeuristicEnricher) -> None:
    note = NoteDraft(title="t", content="The Obsidian mirror writes one markdown file per note.",
                     note_kind="general")
    links = enricher.decide_links(note, [
        cand("ZK-8", "Obsidian vault subfolder defaults to brain.", "general", 0.55),
        cand("ZK-9", "Lunch menus rotate weekly.", "general", 0.12),
    ])
    assert [(link.zk_id, link.link_type) for link in links] == [("ZK-8", LinkType.RELATES_TO)]


# --- evolution ---------------------------------------------------------------------------------


def test_evolution_appends_a_clause_once(enricher: HeuristicEnricher) -> None:
    old = NoteDraft(title="Index must be ONLINE", content=MISTAKE, context="Records a failure.",
                    note_kind="mistake")
    new = NoteDraft(title="Poll SHOW INDEXES until ONLINE", content="...", note_kind="fix")
    evolved = enricher.evolve_context(old, new, LinkType.FIXES)
    assert evolved == 'Records a failure. Fixed by "Poll SHOW INDEXES until ONLINE".'
    again = old.model_copy(update={"context": evolved})
    assert enricher.evolve_context(again, new, LinkType.FIXES) is None


def test_evolution_replaces_the_clause_for_the_same_note(enricher: HeuristicEnricher) -> None:
    old = NoteDraft(title="a", content="a", context='Why. See also "Pool size".')
    new = NoteDraft(title="Pool size", content="b")
    assert enricher.evolve_context(old, new, LinkType.CAUSED_BY) == 'Why. Causes "Pool size".'


def test_evolution_stays_bounded_and_keeps_the_base(enricher: HeuristicEnricher) -> None:
    context = "Records why the lease matters."
    for i in range(40):
        old = NoteDraft(title="lease", content="lease", context=context)
        new = NoteDraft(title=f"Lease detail number {i} with a fairly long title", content="x")
        context = enricher.evolve_context(old, new, LinkType.EXTENDS) or context
    assert len(context) <= 600 and context.count("Extended by") == 3
    assert context.startswith("Records why the lease matters.")
    assert context.endswith('Extended by "Lease detail number 39 with a fairly long title".')


# --- synthesis and splitting -------------------------------------------------------------------


def test_synthesis_merges_sentences_once_under_the_central_title(
    enricher: HeuristicEnricher,
) -> None:
    notes = [
        NoteDraft(title="Neo4j vector index needs ONLINE state",
                  content="The Neo4j vector index must be ONLINE before queryNodes. "
                          "Poll SHOW INDEXES at start-up.", note_kind="mistake"),
        NoteDraft(title="Wait for the vector index",
                  content="The Neo4j vector index must be ONLINE before queryNodes. "
                          "bootstrap_schema waits up to 30 s.", note_kind="fix"),
        NoteDraft(title="Vector index readiness in Neo4j",
                  content="Poll SHOW INDEXES at start-up. Vector index creation is asynchronous "
                          "in Neo4j.", note_kind="mistake"),
    ]
    result = enricher.synthesize(notes)
    assert result.title in {n.title for n in notes}
    assert result.content.count("The Neo4j vector index must be ONLINE before queryNodes.") == 1
    assert result.content.count("Poll SHOW INDEXES at start-up.") == 1
    assert "bootstrap_schema waits up to 30 s." in result.content
    assert "asynchronous" in result.content
    assert any("vector index" in k.lower() for k in result.keywords[:3])
    assert result.tags[0] == "mistake"
    assert "3" in result.context


def test_synthesis_of_nothing_is_invalid(enricher: HeuristicEnricher) -> None:
    with pytest.raises(InvalidInput):
        enricher.synthesize([])


def test_split_atomic_drops_filler_and_keeps_statements(enricher: HeuristicEnricher) -> None:
    session = (
        "ok thanks!\n\n"
        "## Findings\n"
        "- The lease query must filter on project. Otherwise two projects block each other.\n"
        "- Neo4j 5.26 needs Java 17.\n"
        "\n"
        "Should we also test on Windows?\n\n"
        "The Obsidian mirror is best-effort. It never blocks add_memory.\n"
        "```python\nmirror.write(note)\n```\n"
        "Done."
    )
    assert enricher.split_atomic(session) == [
        "The lease query must filter on project. Otherwise two projects block each other.",
        "Neo4j 5.26 needs Java 17.",
        "The Obsidian mirror is best-effort. It never blocks add_memory.\n"
        "```python\nmirror.write(note)\n```",
    ]


def test_enrichment_keeps_identifiers_and_phrases_and_infers_the_kind(
    enricher: HeuristicEnricher,
) -> None:
    e = enricher.enrich(
        "Fixed TimeoutError in the payment worker by adding exponential backoff with jitter.",
        "general", "shop")
    assert e.title.startswith("Fixed TimeoutError in the payment worker")
    assert "TimeoutError" in e.keywords and "payment worker" in e.keywords
    assert e.note_kind == "fix"
    assert e.tags[:2] == ["fix", "shop"]
    assert {"timeouterror", "payment worker"} <= {x.key for x in e.entities}


def test_a_given_kind_is_kept(enricher: HeuristicEnricher) -> None:
    e = enricher.enrich("Fixed TimeoutError in the payment worker.", "research", "shop")
    assert e.note_kind == "research"
