// Notes and kept revisions of a project whose context quotes one of the given titles (the
// evolution clauses `See also "<title>".` that linked notes gained): what a hard forget cleans.
// params: project; needles: the quoted titles to look for.
// returns: zk_id, version, title, content, context; version null for a note, the revision's
//          number for a revision
MATCH (n:Note {project: $project})
WHERE any(x IN $needles WHERE n.context CONTAINS x)
RETURN n.zk_id AS zk_id, null AS version, n.title AS title, n.content AS content,
       n.context AS context
UNION ALL
MATCH (r:Revision)-[:REVISION_OF]->(n:Note {project: $project})
WHERE any(x IN $needles WHERE r.context CONTAINS x)
RETURN n.zk_id AS zk_id, r.version AS version, r.title AS title, r.content AS content,
       r.context AS context
