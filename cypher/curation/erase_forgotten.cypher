// Hard forget: tombstones and the revisions kept of them are deleted outright, leaving no trace
// of the text or the id (for secrets). A backup taken before can bring such a note back.
// params: zk_ids.
// returns: zk_id, revisions; revisions deleted with each
UNWIND $zk_ids AS id
MATCH (f:Forgotten {zk_id: id})
CALL (f) {
  OPTIONAL MATCH (r:Revision)-[:REVISION_OF]->(f)
  DETACH DELETE r
  RETURN count(r) AS revisions
}
WITH f, f.zk_id AS zk_id, revisions
DETACH DELETE f
RETURN zk_id, revisions
