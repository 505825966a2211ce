// Fragment, rendered into statements when they load (never run alone): the note `row` (a map of
// every Note property; its embedding, 384 floats, stored as a float32 vector property; entities,
// when present, is no property: the MENTIONS are written apart; sentences, its sentences'
// vectors, neither: written as Sentence nodes, fragments/write_sentences) created and bound to
// n; row and n stay bound.
CREATE (n:Note)
SET n = row {.*, embedding: null, entities: null, sentences: null}
WITH n, row
CALL db.create.setNodeVectorProperty(n, 'embedding', row.embedding)
{{> write_sentences
    imports: n, row
    note: n
    vectors: coalesce(row.sentences, []) }}
