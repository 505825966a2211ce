// Ask for notes to be mirrored to Obsidian: one durable job per note, re-armed on every change
// (`requested` tells a worker that finished an older render to run again).
// params: zk_ids: list; now: datetime.
// returns: key; key of each job (a forgotten note's job removes its file; ids of no note or
//          tombstone are skipped)
UNWIND $zk_ids AS id
MATCH (n:Note|Forgotten {zk_id: id})
MERGE (j:Job {key: 'mirror:' + id})
ON CREATE SET j.kind = 'mirror', j.zk_id = id, j.created = $now
SET j.project = n.project, j.state = 'pending', j.attempts = 0, j.requested = $now,
    j.error = null
RETURN j.key AS key
