// Neo4j Browser guide: the project most recently written to or used, the guide's default
// $project (`:param [project] => { ... }` runs this statement and keeps its first row).
// params: none. returns: project.
MATCH (n:Note)
WHERE n.memory_type <> 'archived'
RETURN n.project AS project
ORDER BY coalesce(n.last_accessed, n.updated, n.created) DESC
LIMIT 1
