// search_memory's lexical channel alone (fragments/lexical_in_project), with search_memory's
// parameters and filter, bound to nothing else: its share of the search's time
// (bench/lexical_cost.py); read only.
// params: question ({lex, excluded, kinds}), notes, lex_df, rare_share, project, pool (as
//         search_memory)
// returns: kept, unknown, known; kept: the notes kept; unknown, known: the query's content words
//          no note / some note of the project holds
{{> lexical_in_project
    as: lex
    notes: $notes
    size: $pool
    where: n.memory_type = 'permanent' AND NOT n.note_kind IN $question.excluded
      AND ($question.kinds IS NULL OR n.note_kind IN $question.kinds) }}
RETURN size(lex) AS kept, lex_unknown AS unknown, lex_known AS known
