// Neo4j Browser (table view): how a project's notes divide over note_kind and memory_type, with
// the newest title of each group. params: project.
// returns: note_kind, memory_type, notes, pinned, newest.
MATCH (n:Note {project: $project})
WITH n ORDER BY n.created DESC
RETURN n.note_kind AS note_kind, n.memory_type AS memory_type, count(*) AS notes,
       sum(CASE WHEN n.pinned THEN 1 ELSE 0 END) AS pinned, head(collect(n.title)) AS newest
ORDER BY notes DESC
