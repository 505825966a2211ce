// Archive a project's older open threads once the new handoff's thread exists (same transaction);
// the new thread SUPERSEDES each one it replaces.
// params: project; keep: zk_id of the new open thread; now: datetime; reason: archive reason.
// returns: zk_id; zk_id of each archived thread
MATCH (new:Note {zk_id: $keep})
MATCH (old:Note {project: $project, note_kind: 'open_thread'})
WHERE old.memory_type <> 'archived' AND old.zk_id <> $keep
SET old.memory_type = 'archived', old.archived_at = $now, old.archive_reason = $reason
MERGE (new)-[r:SUPERSEDES]->(old)
ON CREATE SET r.created = $now
SET r.reason = $reason, r.weight = 1.0
RETURN old.zk_id AS zk_id
