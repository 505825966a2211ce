// Fragment, rendered into statements when they load (never run alone): the vector index's
// {{fetch}} nearest notes to {{vector}}, each bound to m with score, the index's (1 + cos) / 2,
// kept to $project's notes that pass {{where}} (conditions on m). Neo4j 5.26's vector index
// cannot filter: it answers the nearest notes of every project and the other projects' are
// dropped after, so a project beside larger ones keeps about {{fetch}} x its share of the notes
// (fragments/project_neighbours.2026 filters inside the index).
CALL db.index.vector.queryNodes('vector_index_Note_embedding', {{fetch}}, {{vector}})
YIELD node AS m, score
WHERE m.project = $project AND {{where}}
