// Notes (and tombstones of forgotten notes) move from project `source` to `target`: what
// they mention is re-filed under the target's entity of the same key (made when new, counts
// of live notes following), their queued jobs follow, and an entity of the source no note
// mentions any more is removed. Links and revisions hang on the notes and move with them.
// params: zk_ids; source; target; now.
// returns: zk_ids; the notes moved
UNWIND $zk_ids AS id
OPTIONAL MATCH (live:Note {zk_id: id})
OPTIONAL MATCH (gone:Forgotten {zk_id: id})
WITH coalesce(live, gone) AS n
WHERE n IS NOT NULL AND n.project = $source
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
WITH collect(n.zk_id) AS moved
CALL (moved) {
  MATCH (j:Job {project: $source})
  WHERE j.zk_id IN moved
  SET j.project = $target
}
RETURN moved AS zk_ids
