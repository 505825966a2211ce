"""Dedup compares the specifics of two alike texts: numbers, versions, paths, identifiers."""

from kg_brain.memory import details


def test_texts_differing_only_in_punctuation_have_the_same_details() -> None:
    assert details("Run pytest with -x to stop early.") == details("Run pytest with -x to stop early!")


def test_numbers_versions_paths_and_identifiers_are_details() -> None:
    found = details("Set NEO4J_URI in config/app.yaml, bump neo4j to 5.26.30, call getUser() on 8080")
    assert {"neo4j_uri", "config/app.yaml", "5.26.30", "getuser", "8080"} <= set(found)


def test_a_changed_port_changes_the_details() -> None:
    assert details("listens on port 8001") != details("listens on port 8002")
