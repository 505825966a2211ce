// Fragment, Neo4j 2026's version of project_neighbours.cypher (same slots, same rows): the
// vector index declares n.project (schema bootstrap) and the SEARCH clause filters on it inside
// the index, so its {{fetch}} nearest notes to {{vector}} are all $project's; kept when they
// pass {{where}} (conditions on m) at a cosine of at least {{floor}}, each bound to m with
// similarity, the exact cosine in [-1, 1]. When the farthest of them still passes {{floor}},
// notes past it may pass too: an exact scan of the project answers instead when {{rescan}}. A
// {{fetch}} of 0 (a project the scan reads faster than the index) skips the index query.
CALL ({{imports}}) {
  CALL ({{imports}}) {
    WITH 1 AS one WHERE {{fetch}} > 0
    MATCH (m:Note)
      SEARCH m IN (VECTOR INDEX vector_index_Note_embedding FOR {{vector}}
                   WHERE m.project = $project LIMIT {{fetch}}) SCORE AS score
    RETURN coalesce(count(m) = {{fetch}} AND 2 * min(score) - 1 >= {{floor}}, false) AS full,
           collect(CASE WHEN {{where}} THEN m END) AS indexed
  }
  WITH {{imports}}, indexed, {{fetch}} = 0 OR (full AND {{rescan}}) AS scan
  CALL ({{imports}}, indexed, scan) {
    UNWIND CASE WHEN scan THEN [] ELSE indexed END AS m
    RETURN m
    UNION
    MATCH (m:Note)
    WHERE m.project = CASE WHEN scan THEN $project END AND {{where}}
    RETURN m
  }
  WITH m, 2 * vector.similarity.cosine({{vector}}, m.embedding) - 1 AS similarity
  WHERE similarity >= {{floor}}
  RETURN m, similarity
}
