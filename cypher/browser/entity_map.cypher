// Neo4j Browser: a project's entity map: the entities (services, files, libraries, errors, ...)
// its live notes mention most, each with the notes that mention it, so notes sharing an entity
// sit together. params: project. returns: e (entity), mentions, p (a MENTIONS path).
MATCH (e:Entity {project: $project})
WITH e, COUNT { (n:Note)-[:MENTIONS]->(e) WHERE n.memory_type <> 'archived' } AS mentions
WHERE mentions > 0
WITH e, mentions ORDER BY mentions DESC, e.key LIMIT 40
MATCH p = (n:Note)-[:MENTIONS]->(e)
WHERE n.memory_type <> 'archived'
RETURN e, mentions, p
