// The session order: a new permanent note FOLLOWS the project's permanent note written last
// before it, when that one was written at or after $since (the session's gap). Found through the
// (project, created) index, newest first.
// params: zk_id: the new note; project; since: earliest creation time that counts as the same
//         session; reason: the link's reason; now: datetime.
// returns: src, dst, type; the link written (no row when no note of the session precedes it)
MATCH (n:Note {zk_id: $zk_id})
MATCH (p:Note)
WHERE p.project = $project AND p.created >= $since AND p.created <= n.created
  AND p.memory_type = 'permanent' AND p <> n
WITH n, p ORDER BY p.created DESC, p.zk_id DESC LIMIT 1
MERGE (n)-[r:FOLLOWS]->(p)
ON CREATE SET r.created = $now, r.reason = $reason, r.weight = 1.0,
              r.origin = 'auto'
RETURN n.zk_id AS src, p.zk_id AS dst, type(r) AS type
