// Stamp access on the notes searches returned, a batch at a time (kg_brain/domain/access.py):
// each note's count rises by its uses and its last access is the latest of them.
// params: stamps: one {zk_id, uses, at: datetime} per note.
// returns: nothing
UNWIND $stamps AS s
MATCH (n:Note {zk_id: s.zk_id})
SET n.access_count = coalesce(n.access_count, 0) + s.uses, n.last_accessed = s.at
