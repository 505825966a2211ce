// Ask for notes to be mirrored to Obsidian: one durable job per note, re-armed on every change.
// `requests` counts the asks under the job's write lock, so it orders them as they commit: a
// worker that claimed the job before this ask runs it again (a timestamp taken before the lock
// could be older than the one the claim saw).
// params: zk_ids: list; now: datetime.
// returns: key; key of each job (a forgotten note's job removes its file; ids of no note or
//          tombstone are skipped)
UNWIND $zk_ids AS id
MATCH (n:Note|Forgotten {zk_id: id})
MERGE (j:Job {key: 'mirror:' + id})
ON CREATE SET j.kind = 'mirror', j.zk_id = id, j.created = $now
SET j.project = n.project, j.state = 'pending', j.attempts = 0, j.requested = $now,
    j.requests = coalesce(j.requests, 0) + 1, j.error = null
RETURN j.key AS key
