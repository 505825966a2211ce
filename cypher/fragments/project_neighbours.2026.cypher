// Fragment, Neo4j 2026's version of project_neighbours.cypher (same slots, same rows): the
// vector index declares n.project (schema bootstrap) and the SEARCH clause filters on it inside
// the index, so its {{fetch}} nearest notes to {{vector}} are all $project's; each bound to m
// with score, the index's (1 + cos) / 2, kept when it passes {{where}} (conditions on m).
MATCH (m:Note)
  SEARCH m IN (VECTOR INDEX vector_index_Note_embedding FOR {{vector}}
               WHERE m.project = $project LIMIT {{fetch}}) SCORE AS score
WHERE {{where}}
