// A near-duplicate write reinforces the existing note instead of creating another.
// params: zk_id; now: datetime.
// returns: zk_id
MATCH (n:Note {zk_id: $zk_id})
SET n.updated = $now, n.last_accessed = $now, n.access_count = coalesce(n.access_count, 0) + 1
RETURN n.zk_id AS zk_id
