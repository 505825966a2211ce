// Every stored property of a project's notes, their revisions and links, its tombstones and the
// OpenCode plugin's records (secret-redaction tests search the text for leaked credentials).
// params: project.
// returns: kind, props; kind ('note' | 'revision' | 'link' | 'tombstone' | 'plugin'), props
//          (map, embedding removed)
MATCH (n:Note {project: $project})
CALL (n) {
  RETURN 'note' AS kind, properties(n) AS props
  UNION ALL
  MATCH (r:Revision)-[:REVISION_OF]->(n)
  RETURN 'revision' AS kind, properties(r) AS props
  UNION ALL
  MATCH (n)-[l]-(:Note)
  RETURN 'link' AS kind, properties(l) AS props
}
RETURN kind, props {.*, embedding: null} AS props
UNION ALL
MATCH (f:Forgotten {project: $project})
RETURN 'tombstone' AS kind, f {.*, embedding: null} AS props
UNION ALL
MATCH (p:PluginSession|CommandRun {project: $project})
RETURN 'plugin' AS kind, p {.*, embedding: null} AS props
