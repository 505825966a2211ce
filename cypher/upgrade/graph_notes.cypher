// One page of the notes the graph upgrade looks at (keyset paging in zk_id order): what each
// note says, its kind, the keys of the entities it mentions now and its outgoing typed links,
// each with the text and kind of the note at its other end.
// params: after: last zk_id of the previous page ('' to start); project: name or null (all);
//         link_types: the link types an enricher decides (not the session order); limit.
// returns: zk_id, title, content, note_kind, memory_type, mentions, links; links: list of
//          {dst, type, origin, weight, title, content, note_kind}
MATCH (n:Note)
WHERE n.zk_id > $after AND ($project IS NULL OR n.project = $project)
WITH n ORDER BY n.zk_id LIMIT $limit
RETURN n.zk_id AS zk_id, n.title AS title, n.content AS content, n.note_kind AS note_kind,
       n.memory_type AS memory_type,
       COLLECT { MATCH (n)-[:MENTIONS]->(e:Entity) RETURN e.key ORDER BY e.key } AS mentions,
       COLLECT {
         MATCH (n)-[r]->(m:Note) WHERE type(r) IN $link_types
         WITH r, m ORDER BY m.zk_id, type(r)
         RETURN {dst: m.zk_id, type: type(r), origin: r.origin, weight: r.weight,
                 title: m.title, content: m.content, note_kind: m.note_kind}
       } AS links
