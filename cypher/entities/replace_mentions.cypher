// The entities notes mention, written in the transaction that writes the notes' text: a note's
// MENTIONS become exactly the given entities (one node per project and canonical key), each
// entity's count of live (not archived) notes follows, and an entity no note mentions any more
// is removed.
// params: rows: list of {zk_id, entities: list of {key, name, kind}}; now: datetime.
// returns: zk_id, mentions; how many entities each note now mentions
UNWIND $rows AS row
MATCH (n:Note {zk_id: row.zk_id})
WITH n, row, CASE WHEN n.memory_type = 'archived' THEN 0 ELSE 1 END AS live,
     [ent IN row.entities | ent.key] AS keys
CALL (n, live, keys) {
  MATCH (n)-[m:MENTIONS]->(e:Entity)
  WHERE NOT e.key IN keys
  SET e.notes = e.notes - live
  DELETE m
  WITH e WHERE NOT EXISTS { (e)<-[:MENTIONS]-() }
  DELETE e
}
{{> mention_entities
    imports: n, row, live
    entities: row.entities
    live: live }}
RETURN n.zk_id AS zk_id, COUNT { (n)-[:MENTIONS]->() } AS mentions
