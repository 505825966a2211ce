// Durable queue: one job per (kind, note, cause); MERGE on the key makes enqueueing idempotent.
// params: rows: list of {key, kind, zk_id, project}; now: datetime.
// returns: key
UNWIND $rows AS row
{{> enqueue_job
    row: row }}
RETURN j.key AS key
