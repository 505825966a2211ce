// Claim pending jobs of a kind in one project only (a scoped drain: tests, benchmarks, one
// tenant), oldest first in the index's order (schema/create_job_project_claim_index), as
// jobs/claim_jobs.
// params: kind; project; now, until: datetimes; limit; worker: id.
// returns: key, zk_id, project, attempts
MATCH (j:Job)
WHERE j.kind = $kind AND j.state = 'pending' AND j.project = $project AND j.created IS NOT NULL
WITH j ORDER BY j.kind, j.state, j.project, j.created
WHERE j.claimed_until IS NULL OR j.claimed_until < $now
WITH j LIMIT $limit
SET j.claimed_until = $until, j.worker = $worker, j.attempts = j.attempts + 1,
    j.claimed_requests = coalesce(j.requests, 0)
RETURN j.key AS key, j.zk_id AS zk_id, j.project AS project, j.attempts AS attempts
