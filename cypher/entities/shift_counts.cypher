// Notes that were just archived (delta -1) or brought back (delta +1): the live-note counts of
// the entities they mention follow, in the same transaction as the change of state.
// params: zk_ids; delta: -1 or 1.
// returns: entities; entities whose count changed
MATCH (n:Note)-[:MENTIONS]->(e:Entity)
WHERE n.zk_id IN $zk_ids
WITH e, count(n) AS notes
SET e.notes = e.notes + $delta * notes
RETURN count(e) AS entities
