// Neo4j Browser: a project's live notes (most recently used first) and the typed links between
// them. Set `:param project => 'my-project'` first. Nodes are captioned by title (kg-brain.grass).
// params: project. returns: n (note), p (a link path to another note of the project, or null).
MATCH (n:Note {project: $project})
WHERE n.memory_type <> 'archived'
WITH n ORDER BY coalesce(n.last_accessed, n.updated, n.created) DESC LIMIT 150
OPTIONAL MATCH p = (n)-[]->(:Note {project: $project})
RETURN n, p
