// Settle a claimed mirror job: done, failed, or pending again with a retry time. A job asked
// for again after its claim committed stays pending so the newer state is mirrored too; a
// request the claim already saw does not (the render read the note after it).
// params: key; now: datetime; state: 'done' | 'failed' | 'pending';
//         retry_at: datetime or null; error: text or null.
// returns: key, state
MATCH (j:Job {key: $key, kind: 'mirror'})
WITH j, j.claimed_requests IS NULL OR coalesce(j.requests, 0) > j.claimed_requests AS again
SET j.state = CASE WHEN again THEN 'pending' ELSE $state END,
    j.claimed_until = CASE WHEN again THEN null ELSE $retry_at END,
    j.finished = $now, j.error = $error
RETURN j.key AS key, j.state AS state
