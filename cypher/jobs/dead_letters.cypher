// Failed jobs (dead letters), newest first, with the error that ended them.
// params: limit.
// returns: key, kind, zk_id, project, attempts, error, finished
MATCH (j:Job {state: 'failed'})
RETURN j.key AS key, j.kind AS kind, j.zk_id AS zk_id, j.project AS project,
       j.attempts AS attempts, j.error AS error, j.finished AS finished
ORDER BY j.finished DESC LIMIT $limit
