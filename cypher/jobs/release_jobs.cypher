// Give back claimed jobs this worker will not run (it is stopping): pending again at once, the
// claim's attempt not counted.
// params: keys: job keys; worker: id.
// returns: key
MATCH (j:Job {state: 'pending'})
WHERE j.key IN $keys AND j.worker = $worker
SET j.claimed_until = null, j.attempts = j.attempts - 1
RETURN j.key AS key
