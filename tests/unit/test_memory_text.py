"""Pure text helpers of the write path: dedup details, what a note's vector encodes, sentences."""

from kg_brain.domain.memory.text import details


def test_texts_differing_only_in_punctuation_have_the_same_details() -> None:
    assert (details("Run pytest with -x to stop early.")
            == details("Run pytest with -x to stop early!"))


def test_numbers_versions_paths_and_identifiers_are_details() -> None:
    found = details(
        "Set NEO4J_URI in config/app.yaml, bump neo4j to 5.26.30, call getUser() on 8080")
    assert {"neo4j_uri", "config/app.yaml", "5.26.30", "getuser", "8080"} <= set(found)


def test_a_changed_port_changes_the_details() -> None:
    assert details("listens on port 8001") != details("listens on port 8002")


def test_a_title_the_content_already_states_is_not_embedded_twice() -> None:
    from kg_brain.domain.memory.text import embed_text

    assert embed_text("Fixed the retry loop", "Fixed the retry loop: add backoff.", "Why.") == \
        "Fixed the retry loop: add backoff.\nWhy."
    assert embed_text("Retries need backoff", "Add jitter to retries.", "Why.") == \
        "Retries need backoff\nAdd jitter to retries.\nWhy."


def test_a_note_s_sentences_split_at_stops_and_line_breaks_without_its_context() -> None:
    from kg_brain.domain.memory.text import sentences

    assert sentences("Retries need backoff", "Add jitter; cap at 30 s. Why?\n- see ADR 12\n\n") \
        == ["Retries need backoff", "Add jitter;", "cap at 30 s.", "Why?", "- see ADR 12"]
    assert sentences("Add jitter", "Add jitter. Cap it at 3.14 s!") == ["Add jitter.",
                                                                        "Cap it at 3.14 s!"]
    assert sentences("", "...") == []
