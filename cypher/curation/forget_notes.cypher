// Forget notes: each leaves every view (search, session context, inbox, mirror, export) by
// losing its :Note label for :Forgotten, its embedding and its sentences' vectors are deleted
// and its links are dropped (kept on the tombstone as parallel lists, so an undo can bring back
// those whose other end still exists). Its text stays on the tombstone, in no index, until the
// purge.
// Run after store/entities.replace_mentions emptied its mentions, in the same transaction.
// params: zk_ids; reason; now: datetime; purge_after: datetime (the end of the undo window).
// returns: zk_id, project, changed; changed: the note and every note it was linked to
UNWIND $zk_ids AS id
MATCH (n:Note {zk_id: id})
CALL (n) {
  OPTIONAL MATCH (n)-[r]-(m:Note)
  WITH r, m ORDER BY type(r), m.zk_id
  RETURN [x IN collect({r: r, m: m}) WHERE x.r IS NOT NULL] AS links
}
SET n.link_types = [x IN links | type(x.r)], n.link_peers = [x IN links | x.m.zk_id],
    n.link_out = [x IN links | startNode(x.r) = n],
    n.link_reasons = [x IN links | coalesce(x.r.reason, '')],
    n.link_weights = [x IN links | toFloat(coalesce(x.r.weight, 0.0))],
    n.link_origins = [x IN links | coalesce(x.r.origin, 'auto')],
    n.forgotten_at = $now, n.forget_reason = $reason, n.purge_after = $purge_after,
    n.embedding = null
FOREACH (x IN links | DELETE x.r)
WITH n
CALL (n) {
  MATCH (p:Sentence)-[:SENTENCE_OF]->(n)
  DETACH DELETE p
}
REMOVE n:Note
SET n:Forgotten
RETURN n.zk_id AS zk_id, n.project AS project, [n.zk_id] + n.link_peers AS changed
