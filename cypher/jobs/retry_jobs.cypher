// Dead letters back to the queue: failed jobs of a kind (of one project when given) pending
// again with a fresh attempt budget.
// params: kind; project: name or null (every project).
// returns: key
MATCH (j:Job {kind: $kind, state: 'failed'})
WHERE $project IS NULL OR j.project = $project
SET j.state = 'pending', j.attempts = 0, j.error = null, j.finished = null,
    j.claimed_until = null
RETURN j.key AS key
