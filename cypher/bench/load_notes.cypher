// Every note of a load-test project, by id with its text (lost writes, duplicate ids).
// params: project.
// returns: zk_id, content
MATCH (n:Note {project: $project})
RETURN n.zk_id AS zk_id, n.content AS content
