// Settle a claimed mirror job: done, failed, or pending again with a retry time. A job asked
// for again while it was being rendered stays pending so the newer state is mirrored too.
// params: key; claimed_at, now: datetimes; state: 'done' | 'failed' | 'pending';
//         retry_at: datetime or null; error: text or null.
// returns: key, state
MATCH (j:Job {key: $key, kind: 'mirror'})
WITH j, j.requested > $claimed_at AS again
SET j.state = CASE WHEN again THEN 'pending' ELSE $state END,
    j.claimed_until = CASE WHEN again THEN null ELSE $retry_at END,
    j.finished = $now, j.error = $error
RETURN j.key AS key, j.state AS state
