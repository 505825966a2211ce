// Bring an archived note back as permanent. The restore counts as a use (last_accessed = now),
// so the next archival run does not take it straight back.
// params: zk_id; now: datetime.
// returns: zk_id, was; memory_type before the change (null = missing)
MATCH (n:Note {zk_id: $zk_id})
WITH n, n.memory_type AS was
CALL (n, was) {
  WITH n WHERE was = 'archived'
  SET n.memory_type = 'permanent', n.archived_at = null, n.archive_reason = null,
      n.updated = $now, n.last_accessed = $now
}
RETURN n.zk_id AS zk_id, was
