// A repository's first commit gave it its lasting id: the project it had before (named by
// the id of its common git directory) is now the project of that id.
// params: id: the new identity; before: the identity it had before its first commit.
// returns: key; no row when the repository had no project before
MATCH (p:Project {id: $before})
SET p.id = $id, p.former_ids = coalesce(p.former_ids, []) + $before
RETURN p.key AS key
