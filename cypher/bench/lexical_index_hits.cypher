// The lexical channel's full-text queries alone: each term of $lex asked of its index as
// fragments/lexical_in_project asks it, at most $limit hits each, the hits counted and nothing
// read of them (bench/lexical_cost.py); read only.
// params: lex: the terms (as search_memory's); limit: most hits per term
// returns: hits; all terms' hits
UNWIND $lex AS term
CALL (term) {
  CALL db.index.fulltext.queryNodes(term.index, term.query, {limit: $limit})
  YIELD node
  RETURN count(node) AS found
}
RETURN sum(found) AS hits
