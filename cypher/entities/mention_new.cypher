// The entities a batch of new notes mention (notes with no MENTIONS yet, written in this
// transaction), each entity merged once for the batch: one Entity per project and canonical key,
// made when new (named as its first mention names it), its count of live notes raised by the
// live notes of the batch that mention it, then one MENTIONS from each of those notes.
// A batch's notes and their MENTIONS commit together: when its first entity is already
// mentioned by its first note, the batch was written before (the transaction run again after an
// attempt that did commit) and nothing is written.
// params: entities: list of {project, key, name, kind, zk_ids, live}, sorted by project and key
//         (concurrent batches lock shared entities in one order); now: datetime.
// returns: mentions; MENTIONS created
OPTIONAL MATCH (written:Note {zk_id: $entities[0].zk_ids[0]})
                -[:MENTIONS]->(:Entity {project: $entities[0].project, key: $entities[0].key})
WITH count(written) AS before
UNWIND CASE WHEN before = 0 THEN $entities ELSE [] END AS ent
MERGE (e:Entity {project: ent.project, key: ent.key})
  ON CREATE SET e.name = ent.name, e.kind = ent.kind, e.notes = 0, e.created = $now
SET e.notes = e.notes + ent.live
WITH e, ent
UNWIND ent.zk_ids AS zk_id
MATCH (n:Note {zk_id: zk_id})
CREATE (n)-[:MENTIONS]->(e)
RETURN count(*) AS mentions
