// Live neighbours of some notes over the typed note relationships (the reference deep mode's
// graph expansion); read only.
// params: zk_ids: seed notes; project; excluded: note kinds to leave out; limit: per seed.
// returns: via, zk_id, title, relationship, weight; via (seed zk_id), zk_id, title, relationship,
//          weight
UNWIND $zk_ids AS seed_id
MATCH (seed:Note {zk_id: seed_id})
CALL (seed) {
  MATCH (seed)-[r:RELATES_TO|SUPPORTS|EXTENDS|CONTRADICTS|CAUSED_BY|FIXES|SUPERSEDES|PART_OF]-(m:Note)
  WHERE m.project = $project AND m.memory_type = 'permanent' AND NOT m.note_kind IN $excluded
  RETURN m, r ORDER BY coalesce(r.weight, 0.0) DESC LIMIT $limit
}
RETURN seed.zk_id AS via, m.zk_id AS zk_id, coalesce(m.title, '') AS title,
       type(r) AS relationship, coalesce(r.weight, 0.0) AS weight
