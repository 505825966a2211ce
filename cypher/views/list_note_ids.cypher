// Ids of all notes, or of one project's, in id order (a full Obsidian re-mirror).
// params: project (null = every project).
// returns: zk_id
MATCH (n:Note)
WHERE $project IS NULL OR n.project = $project
RETURN n.zk_id AS zk_id
ORDER BY zk_id
