// A failed attempt that may still succeed: the job stays pending, unclaimable until `until`
// (the backoff), with its last error kept.
// params: key; until: datetime; error.
// returns: key; key when it was pending
MATCH (j:Job {key: $key})
WHERE j.state = 'pending'
SET j.claimed_until = $until, j.error = $error
RETURN j.key AS key
