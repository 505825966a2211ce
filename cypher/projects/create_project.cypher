// The project of a new workspace identity, under `key` (the project_key constraint refuses a
// key another identity holds: the caller then tries its next candidate).
// params: id, key, name, now
// returns: key; the key the identity stands for (an earlier one if another process won)
MERGE (p:Project {id: $id})
  ON CREATE SET p.key = $key, p.name = $name, p.created = $now
RETURN p.key AS key
