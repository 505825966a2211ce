// Neo4j Browser: one entity and every live note that mentions it (the Browser also draws the
// typed links between those notes): the entity keyed $entity or, when $entity is null, the one
// most live notes of $project mention. params: project, entity (an Entity key, or null).
// returns: e (the entity), p (a MENTIONS path from a live note, or null).
CALL () {
  MATCH (e:Entity {project: $project, key: $entity})
  RETURN e
  UNION
  MATCH (n:Note {project: $project})-[:MENTIONS]->(e:Entity {project: $project})
  WHERE $entity IS NULL AND n.memory_type <> 'archived'
  WITH e, count(n) AS mentions
  ORDER BY mentions DESC, e.key
  LIMIT 1
  RETURN e
}
OPTIONAL MATCH p = (n:Note)-[:MENTIONS]->(e)
WHERE n.memory_type <> 'archived'
RETURN e, p
