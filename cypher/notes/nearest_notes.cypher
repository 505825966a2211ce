// Nearest notes of one project by embedding (the index, or an exact scan of a small project:
// fragments/nearest_in_project).
// params: vector: 384 floats; project; memory_types: allowed memory_type values;
//         fetch: index candidates to scan; rescan: the exact scan follows a short index answer;
//         k: results; exclude: zk_ids to leave out.
// returns: zk_id, title, content, context, note_kind, memory_type, similarity, entities; best
//          first, entities as keys
{{> nearest_in_project
    as: hits
    vector: $vector
    size: $k
    where: n.memory_type IN $memory_types AND NOT n.zk_id IN $exclude }}
UNWIND hits AS hit
WITH hit.n AS n, hit.s AS similarity
RETURN n.zk_id AS zk_id, n.title AS title, n.content AS content, n.context AS context,
       n.note_kind AS note_kind, n.memory_type AS memory_type, similarity,
       [(n)-[:MENTIONS]->(e:Entity) | e.key] AS entities
ORDER BY similarity DESC, zk_id
