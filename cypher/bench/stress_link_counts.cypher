// Stress check: links leaving a project's notes, and those whose far end is outside the project
// or lacks an embedding. params: project.
// returns: links, foreign_or_partial
MATCH (a:Note {project: $project})-[r]->(b:Note)
RETURN count(r) AS links,
       sum(CASE WHEN b.project <> $project OR b.embedding IS NULL THEN 1 ELSE 0 END)
         AS foreign_or_partial
