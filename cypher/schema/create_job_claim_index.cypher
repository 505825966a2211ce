// Workers claim a kind's pending jobs oldest first (jobs/claim_jobs): the index hands them over
// in that order, so a claim reads its batch, not every pending job, however long the queue.
// params: none.
// returns: nothing
CREATE INDEX job_claim_order IF NOT EXISTS FOR (j:Job) ON (j.kind, j.state, j.created)
