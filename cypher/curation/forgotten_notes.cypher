// Tombstones of forgotten notes, with the text kept aside until the purge (null after it).
// params: zk_ids.
// returns: zk_id, project, forgotten_at, reason, purge_after, title, content, context,
//          memory_type; in the order asked, missing ids left out
UNWIND range(0, size($zk_ids) - 1) AS i
MATCH (f:Forgotten {zk_id: $zk_ids[i]})
RETURN f.zk_id AS zk_id, f.project AS project, f.forgotten_at AS forgotten_at,
       f.forget_reason AS reason, f.purge_after AS purge_after, f.title AS title,
       f.content AS content, f.context AS context, f.memory_type AS memory_type
ORDER BY i
