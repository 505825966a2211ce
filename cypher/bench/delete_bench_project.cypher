// Remove up to $batch of a benchmark's own synthetic notes (call until it returns 0); refuses
// any project not named bench-*.
// params: project; batch.
// returns: deleted; deleted (count)
MATCH (n:Note {project: $project})
WHERE $project STARTS WITH 'bench-'
WITH n LIMIT $batch
DETACH DELETE n
RETURN count(*) AS deleted
