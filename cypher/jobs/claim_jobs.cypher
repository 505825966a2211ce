// Claim pending jobs of a kind for a while (a crashed worker's claim expires), oldest first;
// a mirror job keeps the count of asks it was claimed for (finish_mirror_job compares).
// params: kind; now, until: datetimes; limit; worker: id.
// returns: key, zk_id, project, attempts
MATCH (j:Job {kind: $kind, state: 'pending'})
WHERE j.claimed_until IS NULL OR j.claimed_until < $now
WITH j ORDER BY j.created LIMIT $limit
SET j.claimed_until = $until, j.worker = $worker, j.attempts = j.attempts + 1,
    j.claimed_requests = coalesce(j.requests, 0)
RETURN j.key AS key, j.zk_id AS zk_id, j.project AS project, j.attempts AS attempts
