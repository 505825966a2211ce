// Archive a merged cluster's originals and record the merge: (merged)-[:SUPERSEDES]->(original).
// params: merged: zk_id; originals: zk_ids; now: datetime; reason.
// returns: zk_id; zk_id archived
MATCH (m:Note {zk_id: $merged})
UNWIND $originals AS oid
MATCH (o:Note {zk_id: oid, memory_type: 'permanent'})
SET o.memory_type = 'archived', o.archived_at = $now, o.archive_reason = $reason
CREATE (m)-[:SUPERSEDES {reason: $reason, weight: 1.0, created: $now}]->(o)
RETURN o.zk_id AS zk_id
