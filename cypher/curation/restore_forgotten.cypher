// Undo a forget within the window: the tombstone becomes a :Note again with a fresh embedding,
// and its kept links come back where the other end is still a note (types are the closed
// vocabulary's, written when the links were dropped). Entities follow through
// store/entities.replace_mentions in the same transaction.
// params: rows: list of {zk_id, vector: 384 floats, sentences: its sentences' vectors
//         (fragments/write_sentences)}; now: datetime.
// returns: zk_id, links, changed; links restored; changed: the note and its linked notes
UNWIND $rows AS row
MATCH (f:Forgotten {zk_id: row.zk_id})
WHERE f.content IS NOT NULL
REMOVE f:Forgotten
SET f:Note, f.updated = $now
WITH f, row
CALL db.create.setNodeVectorProperty(f, 'embedding', row.vector)
{{> write_sentences
    imports: f, row
    note: f
    vectors: row.sentences }}
CALL (f) {
  UNWIND range(0, size(coalesce(f.link_peers, [])) - 1) AS i
  MATCH (m:Note {zk_id: f.link_peers[i]})
  WITH f, m, i, CASE WHEN f.link_out[i] THEN [f, m] ELSE [m, f] END AS ends
  WITH f, m, i, ends[0] AS a, ends[1] AS b
  MERGE (a)-[r:$(f.link_types[i])]->(b)
  SET r.reason = f.link_reasons[i], r.weight = f.link_weights[i], r.origin = f.link_origins[i],
      r.created = coalesce(r.created, $now)
  RETURN collect(m.zk_id) AS peers
}
REMOVE f.link_types, f.link_peers, f.link_out, f.link_reasons, f.link_weights, f.link_origins,
       f.forgotten_at, f.forget_reason, f.purge_after
RETURN f.zk_id AS zk_id, size(peers) AS links, [f.zk_id] + peers AS changed
