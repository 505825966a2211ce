// Block until every index is online (a fresh vector index needs a moment).
// params: none.
// returns: nothing
CALL db.awaitIndexes(300)
