// Remove a benchmark project's entities once its notes are gone; refuses any project not named
// bench-*.
// params: project.
// returns: deleted; entities deleted
MATCH (e:Entity {project: $project})
WHERE $project STARTS WITH 'bench-'
DETACH DELETE e
RETURN count(*) AS deleted
