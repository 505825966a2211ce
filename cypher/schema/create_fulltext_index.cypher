// Full-text (Lucene BM25) index over the searchable text of notes; keywords is a string list.
// The project is indexed too, so a search keeps to one project inside the index (a required,
// zero-boost phrase: kg_brain/domain/query_text.py in_project).
// Kept up to date by the transaction that writes a note (not `fulltext.eventually_consistent`):
// a search right after a write finds the note by its words. The index's refresh is part of
// every note write's commit.
// params: none.
// returns: nothing
CREATE FULLTEXT INDEX note_fulltext IF NOT EXISTS
FOR (n:Note) ON EACH [n.title, n.content, n.context, n.keywords, n.project]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}
