// Of some notes, those holding no sentence vectors yet (fragments/write_sentences), with the
// text their sentences are split from: a batch of sentences jobs
// (kg_brain/domain/memory/sentences.py) reads them.
// params: zk_ids: note ids.
// returns: zk_id, title, content; one row per note
MATCH (n:Note)
WHERE n.zk_id IN $zk_ids AND NOT EXISTS { (:Sentence)-[:SENTENCE_OF]->(n) }
RETURN n.zk_id AS zk_id, n.title AS title, n.content AS content
