// The lexical channel's full-text queries with each hit's project read and the project's hits
// collected, as fragments/lexical_in_project does before it weighs them (bench/lexical_cost.py);
// read only.
// params: lex: the terms (as search_memory's); lex_df: most hits per term; project
// returns: hits; the project's hits of all terms
UNWIND $lex AS term
CALL (term) {
  CALL db.index.fulltext.queryNodes(term.index, term.query, {limit: $lex_df})
  YIELD node, score
  WHERE node.project = $project
  RETURN collect({n: node, s: score}) AS hits
}
WITH collect(hits) AS asked
RETURN reduce(total = 0, hits IN asked | total + size(hits)) AS hits
