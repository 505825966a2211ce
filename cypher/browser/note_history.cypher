// Neo4j Browser: the evolution history of one note: every kept Revision (REVISION_OF the note),
// oldest first, with why it was replaced. The note is $zk_id or, when $zk_id is null, the note
// of $project with the most revisions. params: project, zk_id (or null).
// returns: n (the note), p (revision path, or null), version, cause, replaced (datetime), title.
CALL () {
  MATCH (n:Note {zk_id: $zk_id})
  RETURN n
  UNION
  MATCH (r:Revision)-[:REVISION_OF]->(n:Note {project: $project})
  WHERE $zk_id IS NULL
  WITH n, count(r) AS revisions
  ORDER BY revisions DESC, n.zk_id
  LIMIT 1
  RETURN n
}
OPTIONAL MATCH p = (r:Revision)-[:REVISION_OF]->(n)
RETURN n, p, r.version AS version, r.cause AS cause, r.created AS replaced, r.title AS title
ORDER BY version
