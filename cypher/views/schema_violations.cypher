// Notes that break the schema: missing required fields, unknown enum values, malformed ids,
// wrong embedding size. Read-only; the CI-safe health check.
// params: project (null = every project); memory_types, note_kinds: the allowed values;
//         dim: embedding size; limit.
// returns: zk_id, project, problems; zk_id (or element id when missing), project, problems: list
//          of text, ordered by project and id
MATCH (n:Note)
WHERE $project IS NULL OR n.project = $project
WITH n, [p IN [
  CASE WHEN n.zk_id IS NULL THEN 'missing zk_id'
       WHEN NOT toString(n.zk_id) =~ 'ZK-[0-9A-F]{8}' THEN 'malformed zk_id' END,
  CASE WHEN n.project IS NULL THEN 'missing project' END,
  CASE WHEN n.content IS NULL OR trim(toString(n.content)) = '' THEN 'missing content' END,
  CASE WHEN n.memory_type IS NULL THEN 'missing memory_type'
       WHEN NOT n.memory_type IN $memory_types
         THEN 'unknown memory_type ' + toString(n.memory_type) END,
  CASE WHEN n.note_kind IS NULL THEN 'missing note_kind'
       WHEN NOT n.note_kind IN $note_kinds THEN 'unknown note_kind ' + toString(n.note_kind) END,
  CASE WHEN n.created IS NULL THEN 'missing created' END,
  CASE WHEN n.embedding IS NULL THEN 'missing embedding'
       WHEN size(n.embedding) <> $dim
         THEN 'embedding has ' + toString(size(n.embedding)) + ' values' END
] WHERE p IS NOT NULL] AS problems
WHERE size(problems) > 0
RETURN coalesce(n.zk_id, elementId(n)) AS zk_id, n.project AS project, problems
ORDER BY project, zk_id
LIMIT $limit
