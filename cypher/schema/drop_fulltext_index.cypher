// Drops the note full-text index, so the bootstrap creates it again over today's fields (an
// index created before the project was one of them).
// params: none.
// returns: nothing
DROP INDEX note_fulltext IF EXISTS
