// Copies notes (properties, embeddings and sentences' vectors) into another project, fresh ids:
// neighbouring projects that look alike, without embedding the same text again.
// params: rows: [{src: zk_id to copy, zk_id: the copy's id}]; project: the copies' project.
// returns: zk_id; zk_id of each copy
UNWIND $rows AS row
MATCH (n:Note {zk_id: row.src})
CREATE (m:Note)
SET m = n {.*, zk_id: row.zk_id, project: $project}
WITH n, m
CALL (n, m) {
  MATCH (p:Sentence)-[:SENTENCE_OF]->(n)
  CREATE (q:Sentence)-[:SENTENCE_OF]->(m)
  SET q.embedding = p.embedding
}
RETURN m.zk_id AS zk_id
