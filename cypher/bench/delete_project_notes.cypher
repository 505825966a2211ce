// Delete a benchmark project's notes and their relationships, in batches (autocommit).
// params: project (a bench-* project; the caller checks). returns: deleted (count).
MATCH (n:Note {project: $project})
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 2000 ROWS
RETURN count(*) AS deleted
