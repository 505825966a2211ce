// Stress check: the kept revisions of a project's notes, per note. params: project.
// returns: zk_id, versions, causes; versions (list of int), causes (list of str)
MATCH (r:Revision)-[:REVISION_OF]->(n:Note {project: $project})
RETURN n.zk_id AS zk_id, collect(r.version) AS versions, collect(r.cause) AS causes
