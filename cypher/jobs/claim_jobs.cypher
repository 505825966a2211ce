// Claim pending jobs of a kind for a while (a crashed worker's claim expires), oldest first;
// a mirror job keeps the count of asks it was claimed for (finish_mirror_job compares). The
// order is the index's (schema/create_job_claim_index: kind and state fixed, then created), so
// the claim reads the jobs from the oldest until it has $limit, not the whole queue.
// params: kind; now, until: datetimes; limit; worker: id.
// returns: key, zk_id, project, attempts
MATCH (j:Job)
WHERE j.kind = $kind AND j.state = 'pending' AND j.created IS NOT NULL
WITH j ORDER BY j.kind, j.state, j.created
WHERE j.claimed_until IS NULL OR j.claimed_until < $now
WITH j LIMIT $limit
SET j.claimed_until = $until, j.worker = $worker, j.attempts = j.attempts + 1,
    j.claimed_requests = coalesce(j.requests, 0)
RETURN j.key AS key, j.zk_id AS zk_id, j.project AS project, j.attempts AS attempts
