// Fragment, rendered into statements when they load (never run alone): the notes of {{project}}
// that pass {{where}} (conditions on n) and hold a term of $question.terms (each identifier of
// the query as a pattern of the lower-cased text: query_text.identifier_pattern) in their
// content or title, bound to {{as}} as a list of {n, s}. The full-text index finds the
// candidates ($question.exact: the identifiers as phrases in the content and title fields,
// analysed as the notes were; at most $lex_fetch). The index keeps a word joined by dots or
// underscores whole (`analytics.looker_scratch`, a full commit hash), so a phrase misses an
// identifier inside one: when some term has no holder among the phrase candidates, the index
// of words as written is asked for the identifiers inside a word ($question.inside, '' for
// none). The pattern then checks each candidate holds the identifier itself, not only its words
// nor a longer one (`kg-1234` does not hold `kg-123`). A term held by more than {{most}} of the
// candidates is no rare token and counts for nothing; a rarer one is split among its holders:
// s sums share/(its holders) over the note's rare terms ($question.shares[i] of term i: a
// dashed word beside a code counts less), so a token only one note holds says most.
CALL () {
  WITH 1 AS one WHERE $question.exact <> ''
  CALL db.index.fulltext.queryNodes('note_fulltext', $question.exact, {limit: $lex_fetch})
  YIELD node AS n
  WHERE n.project = {{project}} AND {{where}}
  WITH collect(n) AS phrased
  CALL (phrased) {
    WITH phrased
    WHERE $question.inside <> ''
      AND any(t IN $question.terms WHERE none(n IN phrased WHERE toLower(n.content) =~ t
                                           OR toLower(coalesce(n.title, '')) =~ t))
    CALL db.index.fulltext.queryNodes('note_words', $question.inside, {limit: $lex_fetch})
    YIELD node AS n
    WHERE n.project = {{project}} AND {{where}}
    RETURN collect(n) AS inside
  }
  UNWIND phrased + inside AS n
  WITH DISTINCT n
  UNWIND [i IN range(0, size($question.terms) - 1)
          WHERE toLower(n.content) =~ $question.terms[i]
             OR toLower(coalesce(n.title, '')) =~ $question.terms[i]] AS term
  WITH term, collect(n) AS holders
  WHERE size(holders) <= {{most}}
  UNWIND holders AS n
  WITH n, sum($question.shares[term] / size(holders)) AS s
  RETURN collect({n: n, s: s}) AS {{as}}
}
