// Neo4j Browser (table or graph): permanent, unpinned notes of a project that have been idle
// longest and were rarely used: what archival will look at first (`kg-brain` computes the exact
// decay score; this view uses the wall clock, as a human at the Browser expects).
// params: project. returns: n, days_idle, access_count, inbound (links from live notes).
MATCH (n:Note {project: $project, memory_type: 'permanent'})
WHERE NOT coalesce(n.pinned, false)
WITH n, duration.inDays(coalesce(n.last_accessed, n.created), datetime()).days AS days_idle
RETURN n, days_idle, coalesce(n.access_count, 0) AS access_count,
       COUNT { (n)<-[]-(m:Note) WHERE m.memory_type <> 'archived' } AS inbound
ORDER BY access_count, days_idle DESC
LIMIT 50
