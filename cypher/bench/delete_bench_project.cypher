// Remove up to $batch of a benchmark's own synthetic notes with their kept revisions (call until
// it returns 0); refuses any project not named bench-*.
// params: project; batch.
// returns: deleted; notes deleted
MATCH (n:Note {project: $project})
WHERE $project STARTS WITH 'bench-'
WITH n LIMIT $batch
CALL (n) {
  OPTIONAL MATCH (r:Revision)-[:REVISION_OF]->(n)
  DETACH DELETE r
}
CALL (n) {
  MATCH (p:Sentence)-[:SENTENCE_OF]->(n)
  DETACH DELETE p
}
DETACH DELETE n
RETURN count(*) AS deleted
