// Remove a benchmark's own synthetic notes, in batches; refuses any project not named bench-*.
// params: project. returns: nothing.
MATCH (n:Note {project: $project})
WHERE $project STARTS WITH 'bench-'
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS
