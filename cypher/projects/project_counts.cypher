// What a set of projects holds, for the counts before and after a migration or a move: notes,
// tombstones of forgotten notes, links between notes, revisions and entity mentions.
// params: keys: project keys.
// returns: notes, forgotten, links, revisions, mentions
CALL () {
  MATCH (n:Note) WHERE n.project IN $keys
  RETURN count(n) AS notes
}
CALL () {
  MATCH (f:Forgotten) WHERE f.project IN $keys
  RETURN count(f) AS forgotten
}
CALL () {
  MATCH (n:Note)-[r]->(:Note) WHERE n.project IN $keys
  RETURN count(r) AS links
}
CALL () {
  MATCH (:Revision)-[v:REVISION_OF]->(n:Note) WHERE n.project IN $keys
  RETURN count(v) AS revisions
}
CALL () {
  MATCH (n:Note)-[m:MENTIONS]->(:Entity) WHERE n.project IN $keys
  RETURN count(m) AS mentions
}
RETURN notes, forgotten, links, revisions, mentions
