// Failed jobs (dead letters), newest first, with the error that ended them.
// params: limit.
// returns: job; map of key, kind, zk_id, project, attempts, error, finished (ISO string)
MATCH (j:Job {state: 'failed'})
WITH j ORDER BY j.finished DESC LIMIT $limit
RETURN j {.key, .kind, .zk_id, .project, .attempts, .error,
          finished: toString(j.finished)} AS job
