// The end of the undo window: forgotten notes whose window closed lose their text, kept links
// and revisions; the tombstone (zk_id, project, when, reason) stays, so a restore from an older
// backup does not bring them back.
// params: now: datetime; project (null = every project); limit: most tombstones per call.
// returns: zk_id; each tombstone purged
MATCH (f:Forgotten)
WHERE f.purge_after <= $now AND f.content IS NOT NULL
  AND ($project IS NULL OR f.project = $project)
WITH f LIMIT $limit
CALL (f) {
  OPTIONAL MATCH (r:Revision)-[:REVISION_OF]->(f)
  DETACH DELETE r
}
SET f = {zk_id: f.zk_id, project: f.project, forgotten_at: f.forgotten_at,
         forget_reason: f.forget_reason, purged_at: $now}
RETURN f.zk_id AS zk_id
