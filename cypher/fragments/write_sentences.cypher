// Fragment, rendered into statements when they load (never run alone): the note {{note}}'s
// sentence vectors replaced by {{vectors}} (a list of 384-float lists; null keeps them), each
// stored as a (:Sentence)-[:SENTENCE_OF]->(note) node holding a float32 vector property
// `embedding`, with no index: search re-scores its vector channel's best notes by them
// (fragments/nearest_in_project). The CALL imports {{imports}} ({{note}} and what {{vectors}}
// reads); every variable stays bound.
CALL ({{imports}}) {
  WITH {{note}} AS owner, {{vectors}} AS vectors
  WHERE vectors IS NOT NULL
  CALL (owner) {
    MATCH (old:Sentence)-[:SENTENCE_OF]->(owner)
    DETACH DELETE old
  }
  UNWIND vectors AS vector
  CREATE (p:Sentence)-[:SENTENCE_OF]->(owner)
  WITH p, vector
  CALL db.create.setNodeVectorProperty(p, 'embedding', vector)
}
