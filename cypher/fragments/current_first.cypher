// Fragment, rendered into statements when they load (never run alone): the current value
// first. {{hits}} is a list of maps holding n (a note) and score, best first; bound to {{as}}
// as the same maps, a score lowered where a note yields. Among the best {{head}} hits, a note
// yields to each later-written hit that states the same thing, SUPERSEDES written or not: a
// mutual cosine of at least {{same}} (in [-1, 1]; vector.similarity.cosine() answers
// (1 + cos) / 2), a cosine to the query ($vector) at most {{reach}} below its own, and an
// entity both mention that at most {{subject}} notes mention (their subject: a setting, a
// service, a file; not "localhost", nor a person, a name or a date: who said it and when).
// A note yielding to m such hits scores at most 0.99^m times the best of their scores: below it, and the older the lower (of
// a value changed twice, the first ranks last). $history (a question asking for an earlier
// value) turns it round: the later note yields to the earlier. A mistake states no value (its
// fix ranks with it by FIXES), and a FIXES pair never yields; nor does a note holding an
// identifier of the query ($terms) to one that does not hold it (look-alike services written
// in a row share their words, not the name asked about).
CALL ({{hits}}) {
  UNWIND range(0, size({{hits}}) - 1) AS i
  WITH {{hits}}[i] AS h, i, {{hits}}[..{{head}}] AS top
  CALL (h, i, top) {
    UNWIND CASE WHEN i < {{head}} AND h.n.note_kind <> 'mistake' THEN top ELSE [] END AS o
    WITH h.n AS a, o.n AS b, o.score AS s
    WHERE b <> a AND b.note_kind <> 'mistake'
      AND CASE WHEN $history THEN b.created < a.created ELSE b.created > a.created END
      AND vector.similarity.cosine(a.embedding, b.embedding) >= (1.0 + {{same}}) / 2.0
      AND vector.similarity.cosine(b.embedding, $vector)
          >= vector.similarity.cosine(a.embedding, $vector) - {{reach}} / 2.0
      AND EXISTS { MATCH (a)-[:MENTIONS]->(e:Entity)<-[:MENTIONS]-(b)
                   WHERE e.notes <= {{subject}}
                     AND NOT e.kind IN ['person', 'proper_noun', 'date'] }
      AND NOT EXISTS { (a)-[:FIXES]-(b) }
      // a note holding an identifier of the query the other lacks is about that identifier
      AND NONE(t IN $terms WHERE (toLower(a.content) CONTAINS t
                                  OR toLower(coalesce(a.title, '')) CONTAINS t)
                             AND NOT (toLower(b.content) CONTAINS t
                                      OR toLower(coalesce(b.title, '')) CONTAINS t))
    RETURN max(s) AS cap, count(b) AS later
  }
  WITH h, CASE WHEN later > 0 THEN 0.99 ^ later * cap END AS cap
  RETURN collect(CASE WHEN cap IS NOT NULL AND h.score > cap THEN h {.*, score: cap} ELSE h END)
         AS {{as}}
}
