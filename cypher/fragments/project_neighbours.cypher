// Fragment, rendered into statements when they load (never run alone): the notes of $project
// that pass {{where}} (conditions on m) at a cosine of at least {{floor}} to {{vector}}, each
// bound to m with similarity, the exact cosine in [-1, 1] (the index scores quantized vectors;
// vector.similarity.cosine() is (1 + cos) / 2, converted here). The CALL imports {{imports}}.
// Neo4j 5.26's vector index cannot filter: it answers the {{fetch}} nearest notes of every
// project and the project's are kept. When the farthest of them still passes {{floor}}, notes
// past it may pass too (near notes, of this project or others, filled the answer): an exact scan
// of the project answers instead when {{rescan}}, else the index's answer stands; when it does
// not pass, every note past it is farther, so the answer is whole however small the project's
// share (kg_brain/store/share.py for_pairs). A {{fetch}} of 0 (a project the scan reads faster
// than the index) skips the index query: the scan answers alone. Otherwise the scan's index seek
// gets a null key and costs nothing.
CALL ({{imports}}) {
  CALL ({{imports}}) {
    WITH 1 AS one WHERE {{fetch}} > 0
    CALL db.index.vector.queryNodes('vector_index_Note_embedding', {{fetch}}, {{vector}})
    YIELD node AS m, score
    RETURN coalesce(count(m) = {{fetch}} AND 2 * min(score) - 1 >= {{floor}}, false) AS full,
           collect(CASE WHEN m.project = $project AND {{where}} THEN m END) AS indexed
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
