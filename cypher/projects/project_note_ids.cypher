// The ids of a project's notes, forgotten ones included; with `matching`, only those whose
// title or content holds that text (case-insensitive): what `kg-brain project split` moves.
// params: project; matching: text or null.
// returns: zk_id
CALL () {
  MATCH (n:Note {project: $project}) RETURN n
  UNION ALL
  MATCH (n:Forgotten {project: $project}) RETURN n
}
WITH n
WHERE $matching IS NULL
   OR toLower(coalesce(n.title, '') + ' ' + coalesce(n.content, '')) CONTAINS toLower($matching)
RETURN n.zk_id AS zk_id
ORDER BY zk_id
