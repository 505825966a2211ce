// First statement of a merge transaction: write-lock the members, then read their state, so two
// concurrent merges of one cluster cannot both succeed.
// params: zk_ids; project; now: datetime.
// returns: zk_id; zk_id of each member still permanent
MATCH (n:Note)
WHERE n.zk_id IN $zk_ids AND n.project = $project
SET n.updated = $now
WITH n
WHERE n.memory_type = 'permanent'
RETURN n.zk_id AS zk_id
