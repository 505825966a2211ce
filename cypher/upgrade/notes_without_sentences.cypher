// A page of notes (of any memory type) holding no sentence vectors yet
// (fragments/write_sentences), in zk_id order (keyset paging): the sentence backfill
// (kg_brain/views/sentences.py) reads them.
// params: after: last zk_id of the previous page ('' to start); project: one project, or null
//         for all; limit.
// returns: zk_id, title, content; one row per note
MATCH (n:Note)
WHERE n.zk_id > $after AND ($project IS NULL OR n.project = $project)
  AND NOT EXISTS { (:Sentence)-[:SENTENCE_OF]->(n) }
RETURN n.zk_id AS zk_id, n.title AS title, n.content AS content
ORDER BY zk_id LIMIT $limit
