// Mark a job done only if it is still pending: in the same transaction as the job's writes,
// this is what makes a retried or raced job apply exactly once.
// params: key; now: datetime; state: 'done' | 'failed'; error. returns: key when it was pending.
MATCH (j:Job {key: $key, state: 'pending'})
SET j.state = $state, j.finished = $now, j.error = $error, j.claimed_until = null
RETURN j.key AS key
