// Project nodes back as a journal kept them; those made since (`dropped`) are removed first.
// params: rows: list of {id, key, name, former_ids}; dropped: ids; now.
// returns: projects; how many nodes were restored
CALL () {
  MATCH (p:Project) WHERE p.id IN $dropped
  DETACH DELETE p
}
UNWIND $rows AS row
MERGE (p:Project {id: row.id})
  ON CREATE SET p.created = $now
SET p.key = row.key, p.name = row.name, p.former_ids = row.former_ids
RETURN count(p) AS projects
