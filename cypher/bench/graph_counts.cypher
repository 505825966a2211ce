// What the write path made in the projects named with a prefix: notes, typed links between
// notes (FOLLOWS apart), FOLLOWS, MENTIONS and entities.
// params: prefix: project name prefix.
// returns: notes, typed_links, follows, mentions, entities
MATCH (n:Note) WHERE n.project STARTS WITH $prefix
WITH count(n) AS notes,
     sum(COUNT { (n)-[r]->(:Note) WHERE type(r) <> 'FOLLOWS' }) AS typed_links,
     sum(COUNT { (n)-[:FOLLOWS]->(:Note) }) AS follows,
     sum(COUNT { (n)-[:MENTIONS]->(:Entity) }) AS mentions
RETURN notes, typed_links, follows, mentions,
       COUNT { MATCH (e:Entity) WHERE e.project STARTS WITH $prefix } AS entities
