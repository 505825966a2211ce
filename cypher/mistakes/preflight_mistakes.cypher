// Past mistakes of a project most like a task or failure: exact failure-signature matches first,
// then by vector similarity of the mistake or of a fix for it; each with its fixes. A read: a
// check before a task is no use of the notes it shows (no access stamp, see README "Decay and
// archival"). Similarity is exact over the project's mistakes and fixes (a small share of the
// notes, which the unfiltered vector index could miss entirely among other notes and projects). similarity is the cosine in
// [-1, 1]: vector.similarity.cosine() answers (1 + cos) / 2, converted once, in `score`.
// params: question: {project, signature, exclude} in one map, so the statement has one plan
//         whatever the task and project (Neo4j keys a cached plan on the size class of a text or
//         list parameter, never on what a map holds); project: the project read; signature: normalised failure signature
//         ('' = none); exclude: zk_ids to leave out; vector: 384 floats; fetch: most similar
//         mistakes and fixes considered; k: results.
// returns: mistake, signature_match, similarity, fixes; mistake (map), signature_match (bool),
//          similarity (float, the cosine), fixes (list of maps), best first
CALL {
  MATCH (m:Note {project: $question.project, failure_signature: $question.signature})
  WHERE $question.signature <> '' AND m.note_kind = 'mistake' AND m.memory_type <> 'archived'
  RETURN m, 2 * vector.similarity.cosine(m.embedding, $vector) - 1 AS similarity, 1 AS sig
  UNION ALL
  MATCH (node:Note)
  WHERE node.project = $question.project AND node.note_kind IN ['mistake', 'fix']
    AND node.memory_type <> 'archived' AND node.embedding IS NOT NULL
  WITH node, 2 * vector.similarity.cosine(node.embedding, $vector) - 1 AS score
  ORDER BY score DESC LIMIT $fetch
  OPTIONAL MATCH (node)-[:FIXES]->(fixed:Note {note_kind: 'mistake'})
  WITH CASE node.note_kind WHEN 'mistake' THEN node ELSE fixed END AS m, score
  WHERE m IS NOT NULL AND m.memory_type <> 'archived'
  RETURN m, score AS similarity, 0 AS sig
}
WITH m, max(similarity) AS similarity, max(sig) AS sig
WHERE NOT m.zk_id IN $question.exclude
ORDER BY sig DESC, similarity DESC
LIMIT $k
CALL (m) {
  OPTIONAL MATCH (f:Note)-[:FIXES]->(m)
  WHERE f.memory_type <> 'archived'
  WITH f ORDER BY f.created DESC
  RETURN collect(f {.zk_id, .title, .content, .created}) AS fixes
}
RETURN m {.zk_id, .title, .content, .failure_signature, .memory_type, .created} AS mistake,
       sig = 1 AS signature_match, similarity, fixes
ORDER BY sig DESC, similarity DESC
