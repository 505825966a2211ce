// Fragment, rendered into statements when they load (never run alone): the notes of $project
// that pass {{where}} (conditions on n) and hold a term of $question.terms (the query's
// identifiers, lower-cased) word for word in their content or title, case-insensitive, bound to
// {{as}} as a list of {n, s}. The full-text index finds the candidates ($question.exact: the
// terms as phrases in the content and title fields, analysed as the notes were; at most
// $lex_fetch); CONTAINS checks
// each holds the term itself, not only its words. A term held by more than {{most}} of the
// candidates is no rare token and counts for nothing; a rarer one is split among its holders:
// s sums 1/(its holders) over the note's rare terms, so a token only one note holds says most.
CALL () {
  WITH 1 AS one WHERE $question.exact <> ''
  CALL db.index.fulltext.queryNodes('note_fulltext', $question.exact, {limit: $lex_fetch})
  YIELD node AS n
  WHERE n.project = $project AND {{where}}
  UNWIND [t IN $question.terms WHERE toLower(n.content) CONTAINS t
                         OR toLower(coalesce(n.title, '')) CONTAINS t] AS term
  WITH term, collect(n) AS holders
  WHERE size(holders) <= {{most}}
  UNWIND holders AS n
  WITH n, sum(1.0 / size(holders)) AS s
  RETURN collect({n: n, s: s}) AS {{as}}
}
