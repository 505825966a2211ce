// Nearest notes of one project by embedding: the vector index over-fetches ($fetch, sized by
// the project's share of the database) and filters; when that leaves fewer than $k (a small
// project beside large ones), an exact scan of the project's notes answers instead (the scan's
// index seek gets a null key otherwise, so it costs nothing).
// params: vector: 384 floats; project; memory_types: allowed memory_type values;
//         fetch: index candidates to scan; k: results; exclude: zk_ids to leave out.
// returns: zk_id, title, content, context, note_kind, memory_type, similarity, entities; best
//          first, entities as keys
CALL () {
  CALL db.index.vector.queryNodes('vector_index_Note_embedding', $fetch, $vector)
  YIELD node, score
  WHERE node.project = $project AND node.memory_type IN $memory_types
    AND NOT node.zk_id IN $exclude
  RETURN collect({n: node, s: score})[..$k] AS indexed
}
WITH CASE WHEN size(indexed) >= $k THEN indexed ELSE COLLECT {
  MATCH (n:Note)
  WHERE n.project = CASE WHEN size(indexed) < $k THEN $project END
    AND n.memory_type IN $memory_types AND NOT n.zk_id IN $exclude AND n.embedding IS NOT NULL
  WITH n, vector.similarity.cosine(n.embedding, $vector) AS s
  RETURN {n: n, s: s} AS hit ORDER BY s DESC LIMIT $k
} END AS hits
UNWIND hits AS hit
WITH hit.n AS n, hit.s AS similarity
RETURN n.zk_id AS zk_id, n.title AS title, n.content AS content, n.context AS context,
       n.note_kind AS note_kind, n.memory_type AS memory_type, similarity,
       [(n)-[:MENTIONS]->(e:Entity) | e.key] AS entities
ORDER BY similarity DESC, zk_id
