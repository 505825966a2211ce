// The identities filed under `source` are filed under `target` (rename, merge): the source's
// Project node takes the target key, or, when the target has one, joins it (its ids become the
// target's former ids).
// params: source; target.
// returns: projects; the source nodes changed
MATCH (s:Project {key: $source})
OPTIONAL MATCH (t:Project {key: $target})
CALL (s, t) {
  WITH s, t WHERE t IS NULL
  SET s.key = $target
}
CALL (s, t) {
  WITH s, t WHERE t IS NOT NULL
  SET t.former_ids = coalesce(t.former_ids, []) + s.id + coalesce(s.former_ids, [])
  DETACH DELETE s
}
RETURN count(*) AS projects
