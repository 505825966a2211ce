// Every live note of a project with its embedding (exact nearest neighbours are computed from
// these to score the index path). params: project.
// returns: zk_id, embedding
MATCH (n:Note {project: $project, memory_type: 'permanent'})
RETURN n.zk_id AS zk_id, n.embedding AS embedding
