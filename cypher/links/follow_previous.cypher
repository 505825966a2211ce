// The session order: a new permanent note FOLLOWS the permanent note the same client session
// wrote last in the project, when that one was written at or after $since (the session's gap).
// Session handoffs (session_summary, open_thread) take no part: they digest the session, and
// the plugin writes one after every reply, which would split the steps they digest. Found
// through the (project, created) index, newest first.
// params: zk_id: the new note; project; session_id: the client session writing it; since:
//         earliest creation time that counts as the same session; reason: the link's reason;
//         now: datetime.
// returns: src, dst, type; the link written (no row when no note of the session precedes it)
MATCH (n:Note {zk_id: $zk_id})
MATCH (p:Note)
WHERE p.project = $project AND p.created >= $since AND p.created <= n.created
  AND p.session_id = $session_id AND p.memory_type = 'permanent'
  AND NOT p.note_kind IN ['session_summary', 'open_thread'] AND p <> n
WITH n, p ORDER BY p.created DESC, p.zk_id DESC LIMIT 1
MERGE (n)-[r:FOLLOWS]->(p)
ON CREATE SET r.created = $now, r.reason = $reason, r.weight = 1.0,
              r.origin = 'auto'
RETURN n.zk_id AS src, p.zk_id AS dst, type(r) AS type
