// A note's kept previous versions, newest first.
// params: zk_id.
// returns: version, title, content, context, keywords, tags, memory_type, created, cause
MATCH (r:Revision)-[:REVISION_OF]->(:Note {zk_id: $zk_id})
RETURN r.version AS version, r.title AS title, r.content AS content, r.context AS context,
       r.keywords AS keywords, r.tags AS tags, r.memory_type AS memory_type,
       r.created AS created, r.cause AS cause
ORDER BY version DESC
