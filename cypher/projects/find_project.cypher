// The project key a workspace identity stands for, by its id or an id it had before (a
// repository's id before its first commit, a project merged into this one).
// params: id: the identity (git:..., gitdir:..., path:...).
// returns: key, name; no row when the identity is new
MATCH (p:Project)
WHERE p.id = $id OR $id IN coalesce(p.former_ids, [])
RETURN p.key AS key, p.name AS name
LIMIT 1
