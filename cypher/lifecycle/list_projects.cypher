// Projects that have permanent notes (the scheduled consolidation report walks them).
// params: none.
// returns: project
MATCH (n:Note {memory_type: 'permanent'})
RETURN DISTINCT n.project AS project
ORDER BY project
