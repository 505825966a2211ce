// Full-text index over entity names and keys: a question that names a thing finds its entity.
// params: none.
// returns: nothing
CREATE FULLTEXT INDEX entity_names IF NOT EXISTS
FOR (e:Entity) ON EACH [e.name, e.key]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}
