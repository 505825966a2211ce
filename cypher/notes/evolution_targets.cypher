// For an evolution job: the new note and the neighbours it linked to strongly enough to refine
// (the session order is no such link).
// params: zk_id; min_weight.
// returns: title, content, context, note_kind, target, target_title, target_content,
//          target_context, target_kind, target_keywords, target_tags, link_type; one row per
//          neighbour, with the new note's text
MATCH (n:Note {zk_id: $zk_id})-[r]->(m:Note)
WHERE r.weight >= $min_weight AND type(r) <> 'FOLLOWS' AND m.memory_type <> 'archived'
  AND m.project = n.project
RETURN n.title AS title, n.content AS content, n.context AS context, n.note_kind AS note_kind,
       m.zk_id AS target, m.title AS target_title, m.content AS target_content,
       m.context AS target_context, m.note_kind AS target_kind, m.keywords AS target_keywords,
       m.tags AS target_tags, type(r) AS link_type
