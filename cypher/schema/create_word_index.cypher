// Full-text (Lucene BM25) index over the same fields as note_fulltext with words as written:
// no stemming (`generate` does not meet `generation`) and no stop words dropped. The searches
// ask each query word of both indexes (fragments/lexical_in_project). Its fields are listed in
// another order than note_fulltext's: Neo4j refuses a second full-text index over one label and
// property list.
// Kept up to date by the transaction that writes a note, as note_fulltext is.
// params: none.
// returns: nothing
CREATE FULLTEXT INDEX note_words IF NOT EXISTS
FOR (n:Note) ON EACH [n.content, n.title, n.keywords, n.context, n.project]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard-no-stop-words'}}
