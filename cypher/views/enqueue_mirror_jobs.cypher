// Ask for notes to be mirrored to Obsidian: one durable job per note, re-armed on every change
// (fragments/enqueue_mirror).
// params: zk_ids: list; now: datetime.
// returns: key; key of each job (a forgotten note's job removes its file; ids of no note or
//          tombstone are skipped)
UNWIND $zk_ids AS id
MATCH (n:Note|Forgotten {zk_id: id})
{{> enqueue_mirror
    note: n
    id: id }}
RETURN j.key AS key
