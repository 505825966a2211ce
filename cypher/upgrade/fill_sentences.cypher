// The sentence backfill's write (kg_brain/views/sentences.py): each note's sentence vectors
// (fragments/write_sentences), unless it holds some already or its title or content changed
// since they were read (its writer wrote them then).
// params: rows: list of {zk_id, title, content, sentences: list of 384-float lists}.
// returns: zk_id; each note filled
UNWIND $rows AS row
MATCH (n:Note {zk_id: row.zk_id})
WHERE coalesce(n.title, '') = coalesce(row.title, '')
  AND coalesce(n.content, '') = coalesce(row.content, '')
  AND NOT EXISTS { (:Sentence)-[:SENTENCE_OF]->(n) }
{{> write_sentences
    imports: n, row
    note: n
    vectors: row.sentences }}
RETURN n.zk_id AS zk_id
