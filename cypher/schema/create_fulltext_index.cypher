// Full-text (Lucene BM25) index over the searchable text of notes; keywords is a string list.
// params: none.
// returns: nothing
CREATE FULLTEXT INDEX note_fulltext IF NOT EXISTS
FOR (n:Note) ON EACH [n.title, n.content, n.context, n.keywords]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}
