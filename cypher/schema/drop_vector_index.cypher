// Drops the notes' vector index, so the bootstrap creates it again declaring the project (a
// database made on Neo4j 5.26, or by an earlier kg-brain, now served by the 2026 line).
// params: none.
// returns: nothing
DROP INDEX vector_index_Note_embedding IF EXISTS
