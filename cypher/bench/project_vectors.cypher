// Every live note of a project with its embedding and text: exact nearest neighbours and the
// numpy vector + BM25 baseline are computed from these. params: project.
// returns: zk_id, title, content, note_kind, embedding
MATCH (n:Note {project: $project, memory_type: 'permanent'})
WHERE n.embedding IS NOT NULL
RETURN n.zk_id AS zk_id, coalesce(n.title, '') AS title, n.content AS content,
       n.note_kind AS note_kind, n.embedding AS embedding
ORDER BY zk_id
