// Full notes by id, with their typed links in both directions (embedding left out).
// params: zk_ids: list of ids.
// returns: note, links; note (map), links (list of maps), in the order asked
UNWIND range(0, size($zk_ids) - 1) AS i
MATCH (n:Note {zk_id: $zk_ids[i]})
RETURN n {.*, embedding: null} AS note,
       COLLECT {
         MATCH (n)-[r]-(m:Note)
         RETURN {zk_id: m.zk_id, type: type(r),
                 direction: CASE WHEN startNode(r) = n THEN 'out' ELSE 'in' END,
                 reason: coalesce(r.reason, ''), weight: coalesce(r.weight, 0.0),
                 title: coalesce(m.title, '')}
       } AS links
ORDER BY i
