// Every note of a benchmark project with its link degree (in and out): automatic similarity
// links apart from typed links, and how many entities it mentions.
// params: project.
// returns: zk_id, similarity, typed, mentions
MATCH (n:Note {project: $project})
RETURN n.zk_id AS zk_id,
       COUNT { (n)-[r:RELATES_TO]-(:Note) WHERE coalesce(r.origin, 'auto') = 'auto' } AS similarity,
       COUNT { (n)-[r]-(:Note) WHERE NOT (type(r) = 'RELATES_TO'
                                          AND coalesce(r.origin, 'auto') = 'auto') } AS typed,
       COUNT { (n)-[:MENTIONS]->(:Entity) } AS mentions
