// Fragment, rendered into statements when they load (never run alone): the note `row` (a map of
// every Note property; its embedding, 384 floats, stored as a float32 vector property; entities,
// when present, is no property: the MENTIONS are written apart; sentences, its sentences'
// vectors, neither: written as Sentence nodes, fragments/write_sentences, none when absent or
// null, its sentences job's to write) created and bound to n; row and n stay bound.
// Written again with the same row (a transaction run once more after an attempt that did
// commit), the note is found, not made twice: the MERGE matches only a note of the row's id,
// project and content, so for another note holding the id it tries to create one, and the
// unique constraint on zk_id refuses the write; its sentences given are written again in place
// of the first attempt's (none given: those written meanwhile stay).
MERGE (n:Note {zk_id: row.zk_id, project: row.project, content: row.content})
ON CREATE SET n = row {.*, embedding: null, entities: null, sentences: null}
WITH n, row
CALL db.create.setNodeVectorProperty(n, 'embedding', row.embedding)
{{> write_sentences
    imports: n, row
    note: n
    vectors: row.sentences }}
