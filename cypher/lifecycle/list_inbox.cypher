// A project's fleeting notes (the inbox awaiting distillation), oldest first.
// params: project; limit.
// returns: zk_id
MATCH (n:Note {project: $project, memory_type: 'fleeting'})
RETURN n.zk_id AS zk_id
ORDER BY n.created ASC, n.zk_id ASC
LIMIT $limit
