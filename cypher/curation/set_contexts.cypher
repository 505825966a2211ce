// New contexts for notes (re-embedded) and kept revisions, without keeping another revision:
// a hard forget removing the forgotten note's title from the places it was copied to.
// params: rows: list of {zk_id, version (null: the note itself), context, vector (notes only)}.
// returns: zk_id; one row per note or revision changed
UNWIND $rows AS row
CALL (row) {
  WITH row WHERE row.version IS NULL
  MATCH (n:Note {zk_id: row.zk_id})
  SET n.context = row.context
  WITH n, row
  CALL db.create.setNodeVectorProperty(n, 'embedding', row.vector)
  RETURN n.zk_id AS changed
  UNION
  WITH row WHERE row.version IS NOT NULL
  MATCH (r:Revision {zk_id: row.zk_id, version: row.version})
  SET r.context = row.context
  RETURN r.zk_id AS changed
}
RETURN changed AS zk_id
