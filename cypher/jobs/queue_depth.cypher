// Pending jobs per kind (brain_stats, tests). params: none.
// returns: kind, pending
MATCH (j:Job {state: 'pending'})
RETURN j.kind AS kind, count(*) AS pending
