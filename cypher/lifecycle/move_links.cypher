// Move the typed links between a cluster's members and other notes onto the merged note, same
// type, reason, weight, created and origin (dynamic type from the stored relationship, not from
// text); a link made by hand or explicitly stays so, and so is never pruned.
// Links inside the cluster stay with the archived originals.
// params: merged: zk_id of the new note; originals: member zk_ids.
// returns: moved, neighbours; moved (count), neighbours (zk_ids whose links now reach the merged
//          note)
MATCH (m:Note {zk_id: $merged})
UNWIND $originals AS oid
MATCH (o:Note {zk_id: oid})
CALL (m, o) {
  MATCH (o)-[r]->(x:Note)
  WHERE NOT x.zk_id IN $originals AND x <> m
  MERGE (m)-[nr:$(type(r))]->(x)
  ON CREATE SET nr.created = r.created, nr.reason = r.reason, nr.weight = r.weight,
                nr.origin = r.origin
  ON MATCH SET nr.weight = CASE WHEN r.weight > nr.weight THEN r.weight ELSE nr.weight END,
               nr.origin = CASE WHEN coalesce(nr.origin, 'auto') = 'auto' THEN r.origin
                                ELSE nr.origin END
  DELETE r
  RETURN count(*) AS outgoing, collect(DISTINCT x.zk_id) AS out_ids
}
CALL (m, o) {
  MATCH (o)<-[r]-(x:Note)
  WHERE NOT x.zk_id IN $originals AND x <> m
  MERGE (x)-[nr:$(type(r))]->(m)
  ON CREATE SET nr.created = r.created, nr.reason = r.reason, nr.weight = r.weight,
                nr.origin = r.origin
  ON MATCH SET nr.weight = CASE WHEN r.weight > nr.weight THEN r.weight ELSE nr.weight END,
               nr.origin = CASE WHEN coalesce(nr.origin, 'auto') = 'auto' THEN r.origin
                                ELSE nr.origin END
  DELETE r
  RETURN count(*) AS incoming, collect(DISTINCT x.zk_id) AS in_ids
}
WITH sum(outgoing + incoming) AS moved, collect(out_ids + in_ids) AS ids
RETURN moved, reduce(acc = [], l IN ids | acc + [z IN l WHERE NOT z IN acc]) AS neighbours
