// Bounded degree: each of these notes keeps at most $keep of its automatic RELATES_TO links (in
// and out), the strongest; the weakest beyond that are dropped in the writer's transaction. Typed
// links, and links made explicitly or by hand, are never dropped.
// params: zk_ids: notes that just gained similarity links; keep: most automatic RELATES_TO.
// returns: zk_id, dropped, changed; changed lists both ends of every dropped link
UNWIND $zk_ids AS id
MATCH (n:Note {zk_id: id})
CALL (n) {
  MATCH (n)-[r:RELATES_TO]-(m:Note)
  WHERE coalesce(r.origin, 'auto') = 'auto'
  WITH r, m ORDER BY r.weight DESC, m.zk_id
  WITH collect({r: r, m: m.zk_id}) AS links
  UNWIND links[$keep..] AS weak
  WITH weak.r AS r, weak.m AS other
  DELETE r
  RETURN count(*) AS dropped, collect(other) AS others
}
RETURN n.zk_id AS zk_id, dropped, CASE WHEN dropped > 0 THEN others + [n.zk_id] ELSE [] END
       AS changed
