// Note counts by project, memory_type and note_kind (status, brain_stats).
// params: none.
// returns: project, memory_type, note_kind, notes
MATCH (n:Note)
RETURN n.project AS project, n.memory_type AS memory_type, n.note_kind AS note_kind,
       count(*) AS notes
