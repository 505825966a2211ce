// Remove a benchmark project's OpenCode plugin records (sessions and commands' last outcomes);
// refuses any project not named bench-*.
// params: project.
// returns: deleted; records deleted
MATCH (p:PluginSession|CommandRun {project: $project})
WHERE $project STARTS WITH 'bench-'
DETACH DELETE p
RETURN count(*) AS deleted
