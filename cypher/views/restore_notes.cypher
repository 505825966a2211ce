// Restore a batch of notes from a backup: the note with that zk_id is replaced property by
// property (idempotent), temporal values parsed back to their exact type, the embedding stored
// as a float32 vector property. A forgotten note (its tombstone remains) is not brought back.
// params: rows: list of {zk_id, props: map of plain values, temporal: list of {key, type, value},
//         embedding: list of floats or null, sentences: the sentences' vectors
//         (fragments/write_sentences), null to keep the note's own (a backup written before
//         sentences were stored; the sentence backfill fills them)}.
// returns: zk_id; zk_id of each restored note
UNWIND $rows AS row
WITH row WHERE NOT EXISTS { MATCH (:Forgotten {zk_id: row.zk_id}) }
MERGE (n:Note {zk_id: row.zk_id})
SET n = row.props
FOREACH (t IN row.temporal | SET n[t.key] = CASE t.type
  WHEN 'ZONED DATETIME' THEN datetime(t.value) WHEN 'LOCAL DATETIME' THEN localdatetime(t.value)
  WHEN 'DATE' THEN date(t.value) WHEN 'ZONED TIME' THEN time(t.value)
  WHEN 'LOCAL TIME' THEN localtime(t.value) WHEN 'DURATION' THEN duration(t.value) END)
WITH n, row
CALL (n, row) {
  WITH n, row WHERE row.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(n, 'embedding', row.embedding)
}
{{> write_sentences
    imports: n, row
    note: n
    vectors: row.sentences }}
RETURN n.zk_id AS zk_id
