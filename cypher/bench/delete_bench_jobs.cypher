// Remove a benchmark project's queue jobs (evolution, mirror), done or not; refuses any project
// not named bench-*. params: project.
// returns: deleted; jobs deleted
MATCH (j:Job {project: $project})
WHERE $project STARTS WITH 'bench-'
DETACH DELETE j
RETURN count(*) AS deleted
