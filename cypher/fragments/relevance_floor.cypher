// Fragment, rendered into statements when they load (never run alone): the relevance floor of
// search_memory and deep_search, read from the lexical channel {{lex}}
// (fragments/lexical_in_project), keeping {{keep}}. floor: the least cosine (in [-1, 1]) a hit
// must reach, $floor plus $unknown_step for each content word of the query no note of the
// project holds, for at most $unknown_most of them, plus $lacked_step for each one some note
// holds; each hit of {{lex}} gains a floor of its own: -1 (relevant whatever its cosine) when
// its lexical score reaches $lex_floor or it holds at least $rare_words rare words of the
// query, else floor less $lacked_step for each of those content words it holds.
WITH {{keep}}, {{lex}},
     $floor + $unknown_step * CASE WHEN {{lex}}_unknown < $unknown_most THEN {{lex}}_unknown
                                   ELSE $unknown_most END
            + $lacked_step * {{lex}}_known AS floor
WITH {{keep}}, floor,
     [x IN {{lex}} | x {.*, floor: CASE WHEN x.s >= $lex_floor OR x.rare >= $rare_words
                                        THEN -1.0 ELSE floor - $lacked_step * x.held END}]
     AS {{lex}}
