// Jobs per kind and state (pending, done, failed): brain_stats.
// params: none.
// returns: kind, state, jobs
MATCH (j:Job)
RETURN j.kind AS kind, j.state AS state, count(*) AS jobs
