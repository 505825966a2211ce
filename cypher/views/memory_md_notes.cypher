// What the MEMORY.md view needs about a project's permanent notes, with the inputs of the decay
// score (anchor = last access or creation; inbound = links from live notes, SUPERSEDES and
// FOLLOWS aside, as lifecycle counts them).
// params: project.
// returns: zk_id, title, content, note_kind, pinned, access_count, anchor, inbound
MATCH (n:Note {project: $project, memory_type: 'permanent'})
RETURN n.zk_id AS zk_id, n.title AS title, n.content AS content, n.note_kind AS note_kind,
       coalesce(n.pinned, false) AS pinned, coalesce(n.access_count, 0) AS access_count,
       coalesce(n.last_accessed, n.created) AS anchor,
       COUNT { (n)<-[r]-(m:Note) WHERE m.memory_type <> 'archived'
                                       AND NOT type(r) IN ['SUPERSEDES', 'FOLLOWS'] }
         AS inbound
