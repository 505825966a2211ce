// Neo4j Browser: one note and everything within two typed links of it, in any direction: the
// note $zk_id or, when $zk_id is null, the live note of $project with the most typed links.
// params: project, zk_id (or null). returns: n (the note), p (paths of up to two links to other
// notes, or null).
CALL () {
  MATCH (n:Note {zk_id: $zk_id})
  RETURN n
  UNION
  MATCH (n:Note {project: $project})
  WHERE $zk_id IS NULL AND n.memory_type <> 'archived'
  WITH n
  ORDER BY COUNT { (n)-[:RELATES_TO|SUPPORTS|EXTENDS|CONTRADICTS|CAUSED_BY|FIXES|SUPERSEDES
                      |PART_OF]-(:Note) } DESC, n.zk_id
  LIMIT 1
  RETURN n
}
OPTIONAL MATCH p = (n)-[:RELATES_TO|SUPPORTS|EXTENDS|CONTRADICTS|CAUSED_BY|FIXES|SUPERSEDES
                       |PART_OF*1..2]-(:Note)
RETURN n, p
LIMIT 300
