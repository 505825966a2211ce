// Notes (and tombstones of forgotten notes) move from project `source` to `target`: what
// they mention is re-filed under the target's entity of the same key (made when new, counts
// of live notes following), their queued jobs follow, and an entity of the source no note
// mentions any more is removed. Links and revisions hang on the notes and move with them.
// params: zk_ids; source; target; now.
// returns: zk_ids; the notes moved
UNWIND $zk_ids AS id
MATCH (n {zk_id: id, project: $source})
WHERE n:Note OR n:Forgotten
SET n.project = $target
WITH n, CASE WHEN n.memory_type = 'archived' THEN 0 ELSE 1 END AS live
CALL (n, live) {
  MATCH (n)-[m:MENTIONS]->(e:Entity {project: $source})
  MERGE (t:Entity {project: $target, key: e.key})
    ON CREATE SET t.name = e.name, t.kind = e.kind, t.notes = 0, t.created = $now
  MERGE (n)-[:MENTIONS]->(t)
  SET t.notes = t.notes + live, e.notes = e.notes - live
  DELETE m
  WITH e WHERE NOT EXISTS { (e)<-[:MENTIONS]-() }
  DELETE e
}
CALL (n) {
  MATCH (j:Job {zk_id: n.zk_id, project: $source})
  SET j.project = $target
}
RETURN collect(n.zk_id) AS zk_ids
