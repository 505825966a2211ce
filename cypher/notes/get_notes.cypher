// Full notes by id, with their typed links in both directions (embedding left out) and the
// entities they mention, rarest first.
// params: zk_ids: list of ids.
// returns: note, links, entities; note (map), links and entities (lists of maps), in the order
//          asked
UNWIND range(0, size($zk_ids) - 1) AS i
MATCH (n:Note {zk_id: $zk_ids[i]})
RETURN n {.*, embedding: null} AS note,
       COLLECT {
         MATCH (n)-[r]-(m:Note)
         RETURN {zk_id: m.zk_id, type: type(r),
                 direction: CASE WHEN startNode(r) = n THEN 'out' ELSE 'in' END,
                 reason: coalesce(r.reason, ''), weight: coalesce(r.weight, 0.0),
                 title: coalesce(m.title, '')}
       } AS links,
       COLLECT {
         MATCH (n)-[:MENTIONS]->(e:Entity)
         RETURN {key: e.key, name: e.name, kind: e.kind, notes: e.notes} AS entity
         ORDER BY e.notes, e.key
       } AS entities
ORDER BY i
