// Stamp access on a set of returned notes in one batched write and return their hit fields.
// params: zk_ids: notes in result order; now: datetime.
// returns: zk_id, title, preview, note_kind, project, links; in the order given
UNWIND range(0, size($zk_ids) - 1) AS i
MATCH (n:Note {zk_id: $zk_ids[i]})
SET n.access_count = coalesce(n.access_count, 0) + 1, n.last_accessed = $now
RETURN n.zk_id AS zk_id, coalesce(n.title, '') AS title, left(n.content, 200) AS preview,
       n.note_kind AS note_kind, n.project AS project,
       COLLECT {
         MATCH (n)-[r]-(m:Note)
         RETURN {zk_id: m.zk_id, type: type(r),
                 direction: CASE WHEN startNode(r) = n THEN 'out' ELSE 'in' END,
                 reason: coalesce(r.reason, ''), weight: coalesce(r.weight, 0.0),
                 title: coalesce(m.title, '')}
         LIMIT 10
       } AS links
ORDER BY i
