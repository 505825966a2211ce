// Durable queue: one job per (kind, note, cause); MERGE on the key makes enqueueing idempotent.
// params: rows: list of {key, kind, zk_id, project}; now: datetime.
// returns: key
UNWIND $rows AS row
MERGE (j:Job {key: row.key})
ON CREATE SET j.kind = row.kind, j.zk_id = row.zk_id, j.project = row.project,
              j.state = 'pending', j.attempts = 0, j.created = $now
RETURN j.key AS key
