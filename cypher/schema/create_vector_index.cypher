// The notes' vector index: cosine over the embedding (Neo4j 5.26; the 2026 line creates
// create_filtered_vector_index.cypher instead). Its scores are (1 + cos) / 2.
// params: dimensions: the embedding's length.
// returns: nothing
CREATE VECTOR INDEX vector_index_Note_embedding IF NOT EXISTS
FOR (n:Note) ON n.embedding
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}}
