// Stress check: every job of one kind in a project. params: project; kind.
// returns: key, zk_id, state, attempts
MATCH (j:Job {project: $project, kind: $kind})
RETURN j.key AS key, j.zk_id AS zk_id, j.state AS state, j.attempts AS attempts
