// Apply a conformance migration: set memory_type / note_kind on each note, only where the
// values are still the ones the plan was made from (a concurrent fix is left alone).
// params: rows: list of {zk_id, old_memory_type, old_note_kind, fields: map}.
// returns: zk_id; zk_id of each note changed
UNWIND $rows AS row
MATCH (n:Note {zk_id: row.zk_id})
WHERE coalesce(toString(n.memory_type), '') = coalesce(row.old_memory_type, '')
  AND coalesce(toString(n.note_kind), '') = coalesce(row.old_note_kind, '')
SET n += row.fields
RETURN n.zk_id AS zk_id
