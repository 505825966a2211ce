// Fragment, rendered into statements when they load (never run alone): the current value
// first. {{hits}} is a list of maps holding n (a note) and score, best first, and may hold
// match: what stands for the note's cosine to the query below (in [-1, 1]; search_memory's
// sentence re-score); bound to {{as}} as the same maps in the same order, scores moved where a
// note yields. Among the best {{head}}
// hits (not only the first few: the current note may rank far below the note it replaced), a
// note yields to each hit that states the same thing later. A note states what it says when it
// is written, or last rewritten by update_memory (a Revision with cause 'update'; an evolved
// context restates nothing). The same thing (cosines in [-1, 1]; vector.similarity.cosine()
// answers (1 + cos) / 2): a SUPERSEDES link either way, a mutual cosine of at least
// {{linked}}, the note yielded to of the other's kind or a fix (the write path links
// look-alikes and notes of one topic: a decision or a research note yields to no general note
// linked to it); or a mutual cosine of at least {{same}}, the later note's cosine to the query
// ($vector) at most {{reach}} below the other's, and an entity both mention that at most
// {{subject}} notes mention (a setting, a service, a file; not "localhost", nor a person, a
// name or a date: who said it and when). Asked for the current value, a note also yields to a
// linked note of its kind (as above) among the best {{far}} times {{head}} hits: the note that
// replaced one may rank far below it. The later note takes the best score of the notes
// yielding to it, times 1 + 0.001 times its own cosine to the query ((1 + cos) / 2): of the
// notes one hit yields to (look-alikes of other services among them), the closest in meaning
// ranks first; a note yielding to m hits scores at most 0.99^m times the best of theirs
// (of a value changed twice, the first ranks last). $history (a question asking for an earlier
// value) turns it round: the later note yields to the earlier, and the score passes down the
// chain (of a value changed several times, the first takes it); and asked for the value just
// before one ($before: "before we went to 60", not "originally"), only one hit stating a
// value yields, to the note of the same thing stated just before it: the first stated of the
// hits that state a number the question names ($question.numbers: "60" in "60%", "1.8" in
// "1.8.3", not "60" in "160"; the note that set the value, not a later one naming it as the
// value it replaced) and have such a note, none when no hit does; for a question naming no
// number, the best hit stating a value. Mistakes and open threads
// state no value: they take no part. A session summary states the values its session left, of
// several subjects (its mutual cosine with a note of one of them stays low): it never yields,
// and asked for the current value a note yields to a later summary among the best {{head}}
// hits by the shared entity and the reach alone (summaries are hits only when the search asks
// for handoffs). A fix states the value it set ("raised the pool to 60"), so asked for the
// current value a note yields to a later fix of the same thing; asked for the current value a
// fix never yields (it ranks with its mistake by FIXES: a symptom question asks for the fix,
// not for a later note on its setting); asked for history it yields to an earlier note it is
// SUPERSEDES-linked to (the value it replaced; by the link as above, of any kind), and a
// history question turns to no fix; a FIXES pair never yields; nor,
// asked for the current value, does a note holding an identifier of the query
// ($question.terms) to one that does not hold it (look-alike services written in a row share
// their words, not the name asked about; a history question names the later value).
// Asked for a value of some shape ($question.shapes: a version, a share, an amount, a port,
// an instance class, a number of a unit; never for an earlier value), a note among the best
// {{head}} (a fix too) also yields to a later hit among them, linked or not, that restates a
// value of that shape the note states beside another ("5% now (was 10%)"), when both hold a
// subject word of the question ($question.subject, as itself or with an s) and the later one
// names nothing (a word of no digit with a dash, an underscore, a dot or colon inside; their
// punctuation dropped, $question.glue) the note and the question do not hold: another
// service's value restated is no update. A note's words: its title and content lower-cased,
// split at $question.split, one trailing . : ! or ? dropped; its values "<shape>:<value>"
// (bench/ranking.py _values reads them the same way).
CALL ({{hits}}) {
  CALL ({{hits}}) {
    UNWIND range(0, size({{hits}}) - 1) AS i
    WITH i, {{hits}}[i].n AS n, {{hits}}[i].match AS match
    WHERE i < {{head}} * {{far}}
    CALL (n) {
      OPTIONAL MATCH (r:Revision)-[:REVISION_OF]->(n)
      WHERE r.cause = 'update'
      RETURN max(r.created) AS rewritten
    }
    WITH i, n, match,
         CASE WHEN rewritten > n.created THEN rewritten ELSE n.created END AS stated,
         CASE WHEN i < {{head}} AND size($question.shapes) > 0
              THEN toLower(coalesce(n.title, '') + '\n' + n.content) ELSE '' END AS t
    // asked for a value of some shape: the note's words, its values ("<shape>:<value>") and
    // the names it holds (a word of no digit with a dash, an underscore, a dot or colon inside)
    WITH i, n, match, stated, t,
         [w IN split(reduce(s = t, c IN $question.split | replace(s, c, ' ')), ' ') WHERE w <> ''
          | CASE WHEN size(w) > 1 AND right(w, 1) IN ['.', ':', '!', '?']
                 THEN left(w, size(w) - 1) ELSE w END] AS ws
    WITH i, n, match, stated, t, ws,
         reduce(vs = [], k IN range(0, size(ws) - 1) |
                vs + CASE WHEN ws[k] =~ 'v?[0-9]+(\\.[0-9]+)+'
                          THEN ['version:' + CASE WHEN ws[k] STARTS WITH 'v'
                                                  THEN substring(ws[k], 1) ELSE ws[k] END]
                          ELSE [] END
                   + CASE WHEN ws[k] =~ '[0-9]+(\\.[0-9]+)?%'
                          THEN ['pct:' + left(ws[k], size(ws[k]) - 1)] ELSE [] END
                   + CASE WHEN ws[k] =~ '\\$[0-9][0-9,]*(\\.[0-9]+)?'
                          THEN ['money:' + replace(substring(ws[k], 1), ',', '')] ELSE [] END
                   + CASE WHEN ws[k] =~ '.*[a-z0-9]:[0-9]{2,5}'
                          THEN ['port:' + last(split(ws[k], ':'))] ELSE [] END
                   + CASE WHEN ws[k] =~ '((db|cache)\\.)?[a-z][0-9]+[a-z]*\\.[0-9]*x?(nano|micro|small|medium|large|xlarge)'
                          THEN ['class:' + ws[k]] ELSE [] END
                   + CASE WHEN k + 1 < size(ws) AND ws[k] =~ '[0-9]+(\\.[0-9]+)?'
                               AND $question.units[ws[k + 1]] IS NOT NULL
                          THEN ['q:' + $question.units[ws[k + 1]] + ':' + ws[k]] ELSE [] END
                   + CASE WHEN ws[k] =~ '[0-9][0-9.]*[a-z]+'
                          THEN [u IN keys($question.units)
                                WHERE ws[k] =~ ('[0-9]+(\\.[0-9]+)?' + u)
                                | 'q:' + $question.units[u] + ':'
                                  + left(ws[k], size(ws[k]) - size(u))]
                          ELSE [] END)
           AS vals,
         [w IN ws WHERE size(w) >= 3 AND NOT w =~ '.*[0-9].*'
                        AND w =~ '.*(_|[a-z0-9][.:][a-z0-9]|[a-z0-9]-[a-z0-9]).*'
          | reduce(s = w, c IN $question.glue | replace(s, c, ''))] AS held
    ORDER BY i
    // mistakes and handoffs state no value; a fix states the one it set
    RETURN collect({i: i, n: n, stated: stated, fix: n.note_kind = 'fix',
                    valued: NOT n.note_kind IN ['mistake', 'session_summary', 'open_thread'],
                    summary: n.note_kind = 'session_summary',
                    named: $before AND any(v IN $question.numbers
                               WHERE toLower(coalesce(n.title, '') + '\n' + n.content)
                                     =~ ('(?s).*(?<![0-9.])' + replace(v, '.', '\\.')
                                         + '(?![0-9]).*')),
                    e: n.embedding, t: t, vals: vals, held: held,
                    glued: reduce(s = t, c IN $question.glue | replace(s, c, '')),
                    q: CASE WHEN match IS NULL THEN vector.similarity.cosine(n.embedding, $vector)
                            ELSE (1.0 + match) / 2.0 END}) AS told
  }
  CALL (told) {
    UNWIND told AS x
    UNWIND told AS y
    WITH x, y
    WHERE x.i < {{head}} AND x.valued AND NOT ($history AND y.fix)
      AND (y.valued OR NOT $history AND y.summary)
      AND CASE WHEN $history THEN y.stated < x.stated ELSE y.stated > x.stated END
    // asked for a value of a shape (never for an earlier one), the later note restates a
    // value of that shape the earlier one states beside another, both name a subject word of
    // the question, and the later names nothing the earlier one and the question do not
    WITH x, y, y.i < {{head}} AND y.valued AND size(x.vals) > 0
               AND any(v IN y.vals WHERE v IN x.vals
                                    AND any(h IN $question.shapes WHERE v STARTS WITH h)
                                    AND any(u IN y.vals WHERE NOT u IN x.vals
                                        AND left(u, size(u) - size(last(split(u, ':'))))
                                            = left(v, size(v) - size(last(split(v, ':'))))))
               AND any(w IN $question.subject
                       WHERE x.t =~ ('(?s).*\\b' + w + 's?\\b.*')
                         AND y.t =~ ('(?s).*\\b' + w + 's?\\b.*'))
               AND all(m IN y.held WHERE x.glued CONTAINS m OR $question.glued CONTAINS m)
         AS restated
    WHERE NOT x.fix OR $history OR restated
    WITH x.i AS i, y.i AS j, x.n AS a, y.n AS b, y.q >= x.q - {{reach}} / 2.0 AS near,
         y.stated AS stated, vector.similarity.cosine(x.e, y.e) AS ab, y.summary AS summary,
         x.fix AS fix, restated
    WHERE (NOT fix OR restated OR EXISTS { (a)-[:SUPERSEDES]-(b) })
      AND (restated
           OR ab >= (1.0 + {{linked}}) / 2.0 AND EXISTS { (a)-[:SUPERSEDES]-(b) }
           AND (b.note_kind = a.note_kind OR 'fix' IN [a.note_kind, b.note_kind])
           OR (summary OR ab >= (1.0 + {{same}}) / 2.0) AND near
              AND EXISTS { MATCH (a)-[:MENTIONS]->(e:Entity)<-[:MENTIONS]-(b)
                           WHERE e.notes <= {{subject}}
                             AND NOT e.kind IN ['person', 'proper_noun', 'date'] })
      AND (j < {{head}} OR NOT $history AND b.note_kind = a.note_kind
                             AND EXISTS { (a)-[:SUPERSEDES]-(b) })
      AND NOT EXISTS { (a)-[:FIXES]-(b) }
      AND ($history OR NONE(t IN $question.terms WHERE (toLower(a.content) =~ t
                                               OR toLower(coalesce(a.title, '')) =~ t)
                                          AND NOT (toLower(b.content) =~ t
                                                   OR toLower(coalesce(b.title, '')) =~ t)))
    WITH i, j, stated ORDER BY i, stated DESC, j
    RETURN collect([i, j]) AS pairs
  }
  WITH {{hits}}, told, pairs,
       CASE WHEN size($question.numbers) > 0
            THEN reduce(a = -1, p IN pairs |
                        CASE WHEN told[p[0]].named
                                  AND (a < 0 OR told[p[0]].stated < told[a].stated)
                             THEN p[0] ELSE a END)
            ELSE [x IN told WHERE x.i < {{head}} AND x.valued | x.i][0] END AS top
  WITH {{hits}}, told, CASE WHEN $before THEN [p IN pairs WHERE p[0] = top][0..1]
                            ELSE pairs END AS pairs
  // a later note takes the best score of the notes yielding to it, and a thousandth of it
  // times its own cosine to the query ((1 + cos) / 2): of the later notes one note yields to,
  // the closest in meaning ranks first. Asked for history, the score passes along the chain
  // (one step per pair at most): of a value changed several times, the first takes it.
  WITH {{hits}} AS hits, pairs,
       reduce(l = [h IN {{hits}} | h.score],
              r IN range(1, CASE WHEN $history THEN size(pairs) ELSE 1 END) |
              [k IN range(0, size({{hits}}) - 1) |
               reduce(s = l[k], p IN pairs |
                      CASE WHEN p[1] = k AND l[p[0]] * (1.0 + 0.001 * told[k].q) > s
                           THEN l[p[0]] * (1.0 + 0.001 * told[k].q)
                           ELSE s END)]) AS lifted
  // a yielding note falls just below the best of the notes it yields to
  UNWIND range(0, size(hits) - 1) AS k
  WITH k, hits[k] AS h, lifted[k] AS s, [p IN pairs WHERE p[0] = k | lifted[p[1]]] AS over
  WITH k, h, CASE WHEN size(over) = 0 THEN s
                  ELSE 0.99 ^ size(over) * reduce(m = 0.0, x IN over | CASE WHEN x > m THEN x
                                                                          ELSE m END) END AS cap,
       s
  ORDER BY k
  RETURN collect(h {.*, score: CASE WHEN cap < s THEN cap ELSE s END}) AS {{as}}
}
