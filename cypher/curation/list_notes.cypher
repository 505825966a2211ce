// Browse a project's notes as previews, filtered, one page at a time. Pages are keyset pages
// over (k, zk_id) ascending, where k is the creation (or last update) time in milliseconds,
// negated for newest first: the cursor is the last row's (k, zk_id).
// params: project; memory_types; note_kinds (null = any); tags (null = any; else every one);
//         pinned (null = either); since, until (datetimes on `created`, null = open);
//         entity (an entity key or name, lower case; null = any); order: newest | oldest |
//         updated; after_k, after_id (the cursor, null for the first page); limit.
// returns: zk_id, title, preview, note_kind, memory_type, pinned, tags, created, updated, k
MATCH (n:Note {project: $project})
WHERE n.memory_type IN $memory_types
  AND ($note_kinds IS NULL OR n.note_kind IN $note_kinds)
  AND ($tags IS NULL OR all(t IN $tags WHERE t IN coalesce(n.tags, [])))
  AND ($pinned IS NULL OR coalesce(n.pinned, false) = $pinned)
  AND ($since IS NULL OR n.created >= $since)
  AND ($until IS NULL OR n.created < $until)
  AND ($entity IS NULL OR EXISTS {
    MATCH (n)-[:MENTIONS]->(e:Entity) WHERE toLower(e.key) = $entity OR toLower(e.name) = $entity
  })
WITH n, CASE $order WHEN 'updated' THEN coalesce(n.updated, n.created) ELSE n.created END AS at
WITH n, CASE $order WHEN 'oldest' THEN at.epochMillis ELSE -at.epochMillis END AS k
WHERE $after_k IS NULL OR k > $after_k OR (k = $after_k AND n.zk_id > $after_id)
WITH n, k ORDER BY k, n.zk_id LIMIT $limit
RETURN n.zk_id AS zk_id, coalesce(n.title, '') AS title, left(n.content, 160) AS preview,
       n.note_kind AS note_kind, n.memory_type AS memory_type,
       coalesce(n.pinned, false) AS pinned, coalesce(n.tags, []) AS tags, n.created AS created,
       n.updated AS updated, k
ORDER BY k, zk_id
