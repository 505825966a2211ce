// Neo4j Browser: groups of near-duplicate live notes in a project (cosine >= 0.7), the
// candidates consolidation would merge, with any links already between them.
// params: project. returns: n, similar (notes), scores (the cosine in [-1, 1]: the index's
// (1 + cos) / 2 score converted where it is read), p (links inside the group, or null).
MATCH (n:Note {project: $project, memory_type: 'permanent'})
CALL (n) {
  CALL db.index.vector.queryNodes('vector_index_Note_embedding', 20, n.embedding)
  YIELD node AS m, score
  WITH m, 2 * score - 1 AS cosine
  WHERE m.project = n.project AND m.memory_type = 'permanent' AND n.zk_id < m.zk_id
    AND cosine >= 0.7
  RETURN collect(m) AS similar, collect(round(cosine, 3)) AS scores
}
WITH n, similar, scores WHERE size(similar) > 0
OPTIONAL MATCH p = (n)-[]-(m:Note) WHERE m IN similar
RETURN n, similar, scores, p
ORDER BY size(similar) DESC
LIMIT 50
