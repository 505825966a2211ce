// Plain vector search over one project's live notes (the benchmark baselines: flat vector
// search and each hop of the seed's deep search); read only. Over-fetches from the index, falls
// back to an exact scan of the project when the index candidates do not fill k.
// params: vector: 384 floats; project; excluded: note kinds to leave out; fetch: index
//         candidates; k: results.
// returns: zk_id, title, score, preview, note_kind; score (cosine, 0..1), preview, note_kind; best
//          first
CALL () {
  CALL db.index.vector.queryNodes('vector_index_Note_embedding', $fetch, $vector)
  YIELD node, score
  WHERE node.project = $project AND node.memory_type = 'permanent'
    AND NOT node.note_kind IN $excluded
  RETURN collect({n: node, s: score})[..$k] AS indexed
}
WITH indexed, CASE WHEN size(indexed) >= $k THEN [] ELSE COLLECT {
  MATCH (n:Note)
  WHERE n.project = CASE WHEN size(indexed) < $k THEN $project END
    AND n.memory_type = 'permanent' AND NOT n.note_kind IN $excluded AND n.embedding IS NOT NULL
  WITH n, vector.similarity.cosine(n.embedding, $vector) AS s
  RETURN {n: n, s: s} AS hit ORDER BY s DESC LIMIT $k
} END AS scanned
UNWIND CASE WHEN size(indexed) >= $k THEN indexed ELSE scanned END AS hit
WITH hit.n AS n, hit.s AS score
RETURN n.zk_id AS zk_id, coalesce(n.title, '') AS title, score, left(n.content, 200) AS preview,
       n.note_kind AS note_kind
ORDER BY score DESC, zk_id
