// Neo4j Browser: a project's recorded mistakes, each with the notes that FIX it (fix -> mistake)
// and what they were CAUSED_BY; unfixed mistakes show alone. params: project.
// returns: mistake, p (a FIXES or CAUSED_BY path, or null), fixed (whether any fix exists).
MATCH (mistake:Note {project: $project, note_kind: 'mistake'})
OPTIONAL MATCH p = (mistake)-[:FIXES|CAUSED_BY]-(:Note)
RETURN mistake, p, EXISTS { (:Note)-[:FIXES]->(mistake) } AS fixed
ORDER BY fixed, mistake.created DESC
