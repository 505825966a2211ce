// Notes whose memory_type or note_kind is missing or outside the allowed values: the input of
// the conformance migrations.
// params: project (null = every project); memory_types, note_kinds: the allowed values.
// returns: zk_id, project, memory_type, note_kind
MATCH (n:Note)
WHERE ($project IS NULL OR n.project = $project)
  AND (n.memory_type IS NULL OR NOT n.memory_type IN $memory_types
       OR n.note_kind IS NULL OR NOT n.note_kind IN $note_kinds)
RETURN n.zk_id AS zk_id, n.project AS project, n.memory_type AS memory_type,
       n.note_kind AS note_kind
ORDER BY zk_id
