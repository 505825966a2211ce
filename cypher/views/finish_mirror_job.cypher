// Settle a claimed mirror job: done, failed, or pending again with a retry time. A job asked
// for again after its claim committed stays pending so the newer state is mirrored too; a
// request the claim already saw does not (the render read the note after it).
// The job's write lock is taken (SET finished) before its requests are read: an ask committing
// while this settles is then either seen (pending again) or made after it (it re-arms the job
// itself); a count read before the lock could miss the ask and mark the job done over it.
// params: key; now: datetime; state: 'done' | 'failed' | 'pending';
//         retry_at: datetime or null; error: text or null.
// returns: key, state
MATCH (j:Job {key: $key, kind: 'mirror'})
SET j.finished = $now
WITH j, j.claimed_requests IS NULL OR coalesce(j.requests, 0) > j.claimed_requests AS again
SET j.state = CASE WHEN again THEN 'pending' ELSE $state END,
    j.claimed_until = CASE WHEN again THEN null ELSE $retry_at END,
    j.error = $error
RETURN j.key AS key, j.state AS state
