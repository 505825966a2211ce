// Fragment, rendered into statements when they load (never run alone): BM25 with the project's
// own statistics over the note indexes, bound to {{as}} as a list of {n, s, rare}, best first,
// at most {{size}}, of the notes of {{project}} that pass {{where}} (conditions on n). The index's
// idf is database-wide (a word rare in this project but common in others would weigh little),
// so each query word is asked for alone, in every boosted field at once as one document is read
// ($question.lex: one {query, whole, index, share, rare} per word and index, kept to the
// project; [] = no lexical part), its hits in the project counted (at most $lex_df: its
// document frequency there, of {{notes}} notes) and their scores divided by its best one there (the database-wide
// idf cancels, the term-frequency part and the field boosts stay); a note scores the sum over
// words and indexes of the index's share times the word's idf in the project times that share
// of its best. A word is asked of the stemmed index (note_fulltext) and of the one of words as
// written (note_words), so a note holding the query's own word form scores above one holding
// another form of its stem. rare: how many of the query's words the note holds (in the terms
// marked rare: one index's) that at most $rare_share of the project's notes hold (at least one
// note): lexical evidence that does not depend on the scores' scale. Counting costs a read of
// each hit: a project of more notes than OWN_IDF_MAX (kg_brain/domain/ranking.py) passes one
// term of weight 1 (whole: the whole fielded query), scored as the index scores it, with no
// rare words. held: how many of the query's content words (the terms marked content) the note
// holds. {{as}}_unknown: how many of them no note of the project holds: the question may be
// about something never written down; {{as}}_known: how many some note holds. The CALL imports
// {{imports}}.
CALL ({{imports}}) {
  CALL () {
    UNWIND $question.lex AS term
    CALL (term) {
      CALL db.index.fulltext.queryNodes(term.index, term.query, {limit: $lex_df})
      YIELD node, score
      WHERE node.project = {{project}}
      RETURN collect({n: node, s: score}) AS hits
    }
    RETURN collect({term: term, hits: hits}) AS asked
  }
  CALL (*) {
    UNWIND asked AS held
    WITH held.term AS term, held.hits AS hits, {{notes}} AS notes WHERE size(hits) > 0
    WITH hits,
         term.share * CASE WHEN term.whole THEN 1.0
                           ELSE log(1.0 + (CASE WHEN notes > size(hits)
                                                THEN notes - size(hits) ELSE 0 END + 0.5)
                                    / (size(hits) + 0.5)) / hits[0].s
                      END AS weight,
         CASE WHEN term.rare AND NOT term.whole
                   AND size(hits) <= CASE WHEN $rare_share * notes > 1 THEN $rare_share * notes
                                          ELSE 1 END
              THEN 1 ELSE 0 END AS rare,
         CASE WHEN term.content THEN 1 ELSE 0 END AS content
    UNWIND hits AS hit
    WITH hit.n AS n, sum(weight * hit.s) AS score, sum(rare) AS rare, sum(content) AS held
    ORDER BY score DESC, n.zk_id
    // best first, then {{where}}: only the notes read until {{size}} pass are checked
    WITH n, score, rare, held WHERE {{where}}
    WITH n, score, rare, held LIMIT {{size}}
    RETURN collect({n: n, s: score, rare: rare, held: held}) AS scored
  }
  RETURN scored AS {{as}},
         size([held IN asked WHERE held.term.content AND size(held.hits) = 0]) AS {{as}}_unknown,
         size([held IN asked WHERE held.term.content AND size(held.hits) > 0]) AS {{as}}_known
}
