// Candidate merge pairs in one project: near-duplicates by vector similarity, or notes joined by
// a strong link of a merge-compatible type. Only live, unpinned, non-contextual permanent notes
// of the same kind pair up, and never two notes that contradict each other. Similarities are the
// cosine in [-1, 1]: the index's (1 + cos) / 2 score is converted where it is read; link weights
// are written on that scale.
// Each note's neighbours come from the vector index (fragments/project_neighbours: on Neo4j's
// 2026 line filtered on the project inside the index).
// params: project; min_similarity (cosine); fetch: vector-index neighbours scanned per note;
//         merge_types: link types that mean "same knowledge"; excluded_kinds: note kinds never
//         merged.
// returns: a, b, a_title, b_title, similarity, link_type; a < b (zk_ids), link_type null for
//          vector pairs
MATCH (n:Note {project: $project, memory_type: 'permanent'})
WHERE NOT coalesce(n.pinned, false) AND NOT n.note_kind IN $excluded_kinds
CALL (n) {
  {{> project_neighbours
      vector: n.embedding
      fetch: $fetch
      where: m.memory_type = 'permanent' AND n.zk_id < m.zk_id
        AND 2 * score - 1 >= $min_similarity }}
  RETURN m, 2 * score - 1 AS similarity, null AS link_type
  UNION
  MATCH (n)-[r]-(m:Note {project: n.project, memory_type: 'permanent'})
  WHERE type(r) IN $merge_types AND r.weight >= $min_similarity AND n.zk_id < m.zk_id
  RETURN m, r.weight AS similarity, type(r) AS link_type
}
WITH n, m, similarity, link_type
WHERE NOT coalesce(m.pinned, false) AND m.note_kind = n.note_kind
  AND NOT EXISTS { (n)-[:CONTRADICTS]-(m) }
RETURN n.zk_id AS a, m.zk_id AS b, n.title AS a_title, m.title AS b_title, similarity, link_type
ORDER BY a, b
