// Replace a note's fields and embedding after keeping its previous version as a Revision.
// params: zk_id; fields: map of title, content, context, keywords, tags (and optionally
//         memory_type, failure_signature, note_kind, pinned); vector: 384 floats, or null to
//         keep the embedding (an edit that leaves the embedded text alone); sentences: its
//         sentences' vectors (fragments/write_sentences), null to keep them; now: datetime;
//         cause: why.
// returns: zk_id, version; version (the revision number kept)
// The note's write lock is taken before the versions are read: two concurrent rewrites of one
// note then number their revisions one after the other instead of both taking the same number.
MATCH (n:Note {zk_id: $zk_id})
SET n.updated = $now
WITH n
CALL (n) {
  OPTIONAL MATCH (old:Revision)-[:REVISION_OF]->(n)
  RETURN coalesce(max(old.version), 0) + 1 AS version
}
CREATE (r:Revision {zk_id: n.zk_id, version: version, title: n.title, content: n.content,
                    context: n.context, keywords: n.keywords, tags: n.tags,
                    memory_type: n.memory_type, note_kind: n.note_kind, pinned: n.pinned,
                    created: $now, cause: $cause})
CREATE (r)-[:REVISION_OF]->(n)
SET n += $fields, n.updated = $now
WITH n, version
CALL (n) {
  WITH n WHERE $vector IS NOT NULL
  CALL db.create.setNodeVectorProperty(n, 'embedding', $vector)
}
{{> write_sentences
    imports: n
    note: n
    vectors: $sentences }}
RETURN n.zk_id AS zk_id, version
