// Fragment, rendered into statements when they load (never run alone): BM25 with the project's
// own statistics over the note index, bound to {{as}} as a list of {n, s}, best first, at most
// {{size}}, of the notes of $project that pass {{where}} (conditions on n). The index's idf is
// database-wide (a word rare in this project but common in others would weigh little), so each
// query word is asked for alone in each field ($lex: one {query, boost, whole} per word and
// boosted field, kept to the project; [] = no lexical part), its hits in the project counted
// (at most $lex_df: its document frequency there, of {{notes}} notes) and its scores divided by
// its best one there (the database-wide idf cancels, the term-frequency part stays); a note
// scores the sum over words and fields of the field's boost times the word's idf in the
// project times that share. Counting costs a read of each hit: a project of more notes than
// OWN_IDF_MAX (kg_brain/domain/search.py) passes one term of weight 1 (whole: the whole
// fielded query), scored as the index scores it. The CALL imports {{imports}}.
CALL ({{imports}}) {
  UNWIND $lex AS term
  CALL (term) {
    CALL db.index.fulltext.queryNodes('note_fulltext', term.query, {limit: $lex_df})
    YIELD node, score
    WHERE node.project = $project
    RETURN collect({n: node, s: score}) AS hits
  }
  WITH term, hits, {{notes}} AS notes WHERE size(hits) > 0
  WITH hits, CASE WHEN term.whole THEN 1.0
                  ELSE term.boost * log(1.0 + (CASE WHEN notes > size(hits)
                                                    THEN notes - size(hits) ELSE 0 END + 0.5)
                                              / (size(hits) + 0.5)) / hits[0].s END AS weight
  UNWIND hits AS hit
  WITH hit.n AS n, sum(weight * hit.s) AS score
  WHERE {{where}}
  WITH n, score ORDER BY score DESC, n.zk_id
  RETURN collect({n: n, s: score})[..{{size}}] AS {{as}}
}
