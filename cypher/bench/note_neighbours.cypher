// Live neighbours of some notes over the typed note relationships, each scored by its cosine
// similarity to a hop's query vector (the graph half of the seed's deep search); read only.
// params: zk_ids: seed notes; vector: 384 floats; project; excluded: note kinds to leave out;
//         limit: neighbours per seed (heaviest links first).
// returns: via, zk_id, title, relationship, score; via is the seed's zk_id, score the cosine
//          in [-1, 1] to the query vector (vector.similarity.cosine() is (1 + cos) / 2:
//          converted here, as the vector hits it is ranked with are)
UNWIND $zk_ids AS seed_id
MATCH (seed:Note {zk_id: seed_id})
CALL (seed) {
  MATCH (seed)-[r:RELATES_TO|SUPPORTS|EXTENDS|CONTRADICTS|CAUSED_BY|FIXES|SUPERSEDES|PART_OF]-(m:Note)
  WHERE m.project = $project AND m.memory_type = 'permanent' AND NOT m.note_kind IN $excluded
    AND m.embedding IS NOT NULL
  RETURN m, r ORDER BY coalesce(r.weight, 0.0) DESC, m.zk_id LIMIT $limit
}
RETURN seed.zk_id AS via, m.zk_id AS zk_id, coalesce(m.title, '') AS title,
       type(r) AS relationship, 2 * vector.similarity.cosine(m.embedding, $vector) - 1 AS score
