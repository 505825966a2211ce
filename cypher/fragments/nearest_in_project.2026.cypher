// Fragment, Neo4j 2026's version of nearest_in_project.cypher (same slots, same answer shape):
// the notes of {{project}} nearest {{vector}} that pass {{where}} and not {{except}} (conditions on
// n), best first, at most {{size}}, bound to {{as}} as a list of {n, s} with s the cosine in
// [-1, 1] (unless {{sentences}}: re-scored by sentences, as there). The CALL imports
// {{imports}}.
// The 2026 vector index declares n.project (schema bootstrap), and the SEARCH clause filters on
// it inside the index: the index walks the project's notes only and returns $fetch of them, not
// every project's nearest. The index's order comes from quantized vectors: every candidate is
// scored again exactly (vector.similarity.cosine() is (1 + cos) / 2; s converts). When fewer than
// {{size}} candidates pass {{where}}, an exact scan of the project answers instead when $rescan
// (a project the scan reads in bounded time, kg_brain/store/share.py rescans), else the index's
// shorter answer stands; otherwise the scan's index seek gets a null key and costs nothing. A
// $fetch of 0 (a project the scan reads faster than the index, kg_brain/store/share.py) skips
// the index query: the scan answers alone. {{except}} leaves notes out of the answer without
// deciding between the two. A null {{vector}} finds nothing.
CALL ({{imports}}) {
  CALL ({{imports}}) {
    WITH 1 AS one WHERE {{vector}} IS NOT NULL AND $fetch > 0
    MATCH (n:Note)
      SEARCH n IN (VECTOR INDEX vector_index_Note_embedding FOR {{vector}}
                   WHERE n.project = {{project}} LIMIT $fetch)
    WHERE {{where}}
    WITH n, 2 * vector.similarity.cosine(n.embedding, {{vector}}) - 1 AS s
    ORDER BY s DESC
    RETURN count(n) AS found,
           collect(CASE WHEN NOT ({{except}}) THEN {n: n, s: s} END)
             [..coalesce(({{sentences}}).reach, {{size}})] AS indexed
  }
  WITH *, CASE WHEN found >= {{size}} OR ($fetch > 0 AND NOT $rescan) THEN indexed ELSE COLLECT {
    MATCH (n:Note)
    WHERE n.project = CASE WHEN {{vector}} IS NOT NULL AND found < {{size}}
                             AND ($fetch = 0 OR $rescan) THEN {{project}} END
      AND {{where}} AND NOT ({{except}}) AND n.embedding IS NOT NULL
    WITH n, 2 * vector.similarity.cosine(n.embedding, {{vector}}) - 1 AS s
    RETURN {n: n, s: s} AS hit
    ORDER BY s DESC LIMIT coalesce(({{sentences}}).reach, {{size}})
  } END AS near
  RETURN CASE WHEN {{sentences}} IS NULL THEN near ELSE COLLECT {
    UNWIND near AS x
    WITH x.n AS n, x.s AS whole
    WITH n, whole, reduce(b = null, c IN [(part:Sentence)-[:SENTENCE_OF]->(n)
                     | 2 * vector.similarity.cosine(part.embedding, {{vector}}) - 1]
                     | CASE WHEN b IS NULL OR c > b THEN c ELSE b END) AS best
    WITH n, whole, CASE WHEN best IS NULL THEN whole
                 ELSE ({{sentences}}).whole * whole + (1 - ({{sentences}}).whole) * best END AS s
    RETURN {n: n, s: s} AS hit ORDER BY s DESC
  } END AS {{as}}
}
