// The session order a graph written before it lacks: each permanent note that FOLLOWS none, and
// the permanent note of its project created last before it, at most $gap_s seconds earlier (as
// add_memory links a new note now). Notes created at the same instant (a bulk import) follow
// none of each other.
// params: project: name or null (all); gap_s: SESSION_GAP_S.
// returns: src, dst; one row per link to write
MATCH (n:Note {memory_type: 'permanent'})
WHERE ($project IS NULL OR n.project = $project) AND n.created IS NOT NULL
WITH n ORDER BY n.project, n.created, n.zk_id
WITH n.project AS project, collect(n) AS notes
UNWIND range(1, size(notes) - 1) AS i
WITH notes[i] AS n, notes[i - 1] AS p
WHERE p.created < n.created AND p.created >= n.created - duration({seconds: $gap_s})
  AND NOT EXISTS { (n)-[:FOLLOWS]->(:Note) }
RETURN n.zk_id AS src, p.zk_id AS dst
ORDER BY src
