// Create a batch of notes with the entities they mention; the embedding is stored as a float32
// vector property. Each entity the batch mentions is merged once (one per project and canonical
// key, made when new, named by its first mention in the batch) and its count of live notes
// raises by the batch's live (not archived) notes mentioning it, then each note gets one
// MENTIONS to each of its entities: one index seek and one count write per entity of the
// batch, not per mention.
// params: rows: list of maps with every Note property (embedding: 384 floats; entities, when
//         present, a list of {key, name, kind}, is no property: the MENTIONS); now: datetime.
// returns: zk_id; zk_id of each created note
UNWIND $rows AS row
{{> create_note }}
WITH collect({n: n, row: row}) AS made
CALL (made) {
  UNWIND made AS x
  UNWIND coalesce(x.row.entities, []) AS ent
  WITH x.row.project AS project, ent.key AS key, collect(ent)[0] AS ent,
       collect(DISTINCT {n: x.n, live: CASE WHEN x.row.memory_type = 'archived' THEN 0 ELSE 1 END})
         AS mentioning
  MERGE (e:Entity {project: project, key: key})
    ON CREATE SET e.name = ent.name, e.kind = ent.kind, e.notes = 0, e.created = $now
  SET e.notes = e.notes + reduce(live = 0, m IN mentioning | live + m.live)
  WITH e, mentioning
  UNWIND mentioning AS m
  WITH e, m.n AS n
  CREATE (n)-[:MENTIONS]->(e)
}
UNWIND made AS x
RETURN x.n.zk_id AS zk_id
