// Stress check: how many notes a project holds, how many distinct ids, how many lack a full
// embedding (a half-written note). params: project.
// returns: notes, distinct_ids, without_embedding
MATCH (n:Note {project: $project})
RETURN count(n) AS notes, count(DISTINCT n.zk_id) AS distinct_ids,
       sum(CASE WHEN n.embedding IS NULL OR size(n.embedding) <> 384 THEN 1 ELSE 0 END)
         AS without_embedding
