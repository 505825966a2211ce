// Fragment, rendered into statements when they load (never run alone): for a found note m with
// score s, the live notes f of {{project}} passing {{where}} that FIX it when it is a mistake, each
// bound with m and {{as}}: s times {{lift}} times the link's weight; but when the query names
// what it asks for ($named) and the mistake holds one of $question.terms (identifier patterns) that the
// fix lacks, at most 0.99 of s (the note holding the identifier stays first).
WHERE m.note_kind = 'mistake'
MATCH (f:Note)-[r:FIXES]->(m)
WHERE f.project = {{project}} AND f.memory_type = 'permanent'
  AND NOT f.note_kind IN $question.excluded
  AND {{where}}
WITH f, m, s, {{lift}} * coalesce(r.weight, 1.0) AS share
WITH f, m, s * CASE
    WHEN share > 0.99 AND $named
         AND any(t IN $question.terms WHERE (toLower(m.content) =~ t
                                    OR toLower(coalesce(m.title, '')) =~ t)
                               AND NOT (toLower(f.content) =~ t
                                        OR toLower(coalesce(f.title, '')) =~ t))
    THEN 0.99 ELSE share END AS {{as}}
