// The notes' vector index on Neo4j's 2026 line: cosine over the embedding, declaring the project
// so that a SEARCH clause filters on it inside the index (fragments/nearest_in_project.2026).
// Its scores are (1 + cos) / 2. The same name as 5.26's index: db.index.vector.queryNodes()
// reads it as it reads that one.
// params: dimensions: the embedding's length.
// returns: nothing
CYPHER 25
CREATE VECTOR INDEX vector_index_Note_embedding IF NOT EXISTS
FOR (n:Note) ON n.embedding WITH [n.project]
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}}
