// Mark a job done only if it is still pending: in the same transaction as the job's writes,
// this is what makes a retried or raced job apply exactly once. The job's write lock is taken
// first and the state read after it, so of two workers racing on one job only the first to
// commit sees it pending (a state read before the lock would let both complete it).
// params: key; now: datetime; state: 'done' | 'failed'; error.
// returns: key; key when it was pending
MATCH (j:Job {key: $key})
SET j.locked_at = $now
WITH j
WHERE j.state = 'pending'
SET j.state = $state, j.finished = $now, j.error = $error, j.claimed_until = null
RETURN j.key AS key
