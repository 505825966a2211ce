// A workspace identity is filed under `key` from now on (`kg-brain project claim`, a
// migration): its Project node is made or re-keyed; the notes already under `key` are its.
// params: id, key, name, now
// returns: key
MERGE (p:Project {id: $id})
  ON CREATE SET p.name = $name, p.created = $now
SET p.key = $key
RETURN p.key AS key
