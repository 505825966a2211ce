// Neo4j Browser: the evolution history of one note: every kept Revision (REVISION_OF the note),
// oldest first, with why it was replaced. params: zk_id.
// returns: n (the note), p (revision path, or null), version, cause, replaced (datetime), title.
MATCH (n:Note {zk_id: $zk_id})
OPTIONAL MATCH p = (r:Revision)-[:REVISION_OF]->(n)
RETURN n, p, r.version AS version, r.cause AS cause, r.created AS replaced, r.title AS title
ORDER BY version
