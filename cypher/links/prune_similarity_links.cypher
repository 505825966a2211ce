// Bounded degree: each of these notes keeps at most $keep of its automatic RELATES_TO links (in
// and out), the strongest; the weakest beyond that are dropped in the writer's transaction. Typed
// links, and links made explicitly or by hand, are never dropped.
// params: zk_ids: notes that just gained similarity links; keep: most automatic RELATES_TO.
// returns: zk_id, dropped, changed; changed lists both ends of every dropped link
UNWIND $zk_ids AS id
MATCH (n:Note {zk_id: id})
{{> prune_similarity
    note: n
    keep: $keep }}
RETURN n.zk_id AS zk_id, dropped, CASE WHEN dropped > 0 THEN others + [n.zk_id] ELSE [] END
       AS changed
