// Nearest notes of one project by embedding (the vector index over-fetches, then filters).
// params: vector: 384 floats; project; memory_types: allowed memory_type values;
//         fetch: index candidates to scan; k: results; exclude: zk_ids to leave out.
// returns: zk_id, title, content, context, note_kind, memory_type, similarity, best first.
CALL db.index.vector.queryNodes('vector_index_Note_embedding', $fetch, $vector)
YIELD node AS n, score
WHERE n.project = $project AND n.memory_type IN $memory_types AND NOT n.zk_id IN $exclude
RETURN n.zk_id AS zk_id, n.title AS title, n.content AS content, n.context AS context,
       n.note_kind AS note_kind, n.memory_type AS memory_type, score AS similarity
ORDER BY similarity DESC
LIMIT $k
