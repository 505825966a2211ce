// The live notes of a cluster, as the synthesis needs them.
// params: zk_ids; project.
// returns: zk_id, title, content, context, note_kind, access_count, last_accessed; each member
//          still permanent
MATCH (n:Note)
WHERE n.zk_id IN $zk_ids AND n.project = $project AND n.memory_type = 'permanent'
RETURN n.zk_id AS zk_id, n.title AS title, n.content AS content, n.context AS context,
       n.note_kind AS note_kind, coalesce(n.access_count, 0) AS access_count,
       n.last_accessed AS last_accessed
ORDER BY zk_id
