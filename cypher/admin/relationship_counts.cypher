// Relationship counts between notes, by type (brain_stats).
// params: none.
// returns: type, relationships
MATCH (:Note)-[r]->(:Note)
RETURN type(r) AS type, count(*) AS relationships
ORDER BY type
