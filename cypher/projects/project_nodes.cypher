// Every workspace identity's Project node as it is: what a journal keeps to undo a change.
// params: none.
// returns: id, key, name, former_ids
MATCH (p:Project)
RETURN p.id AS id, p.key AS key, p.name AS name, coalesce(p.former_ids, []) AS former_ids
ORDER BY id
