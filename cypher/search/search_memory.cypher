// Hybrid search in one statement: vector index + full-text (BM25) index, filtered to one
// project's live notes and fused by $fusion: 'linear' adds the vector score scaled from the
// pool's lowest (0) to its best (1), times $w_vec, to the BM25 score over the best one, times
// $w_lex; 'rrf' adds weighted reciprocal ranks. A note holding a rare identifier of the query
// word for word adds $w_exact times its exact-match signal (fragments/exact_matches). The notes
// written just before and after a found one in its session share its score up to just below it
// ($session_before, $session_after); the fix of a found note ranks with it ($fix_lift); a note
// superseded by a live note through a link someone asserted yields to it ($superseded factor),
// and so does an older hit stating the same thing as a newer one (fragments/current_first);
// $history turns both round. Then a hit per clause of a question asking several things. Read
// only: the caller stamps access on what it returns (search/stamp_access).
// The vector channel is the index, or an exact scan of a small project
// (fragments/nearest_in_project).
// params: vector: 384 floats; question: the parts that change with the question in one map, so
//         the statement has one plan whatever the question (Neo4j keys a cached plan on each
//         parameter's type and, for a text or a list, its size class, never on what a map
//         holds): {project, lex, terms, shares, codes, exact, inside, by_code, excluded,
//         kinds, clauses}; project: the
//         project read (the fragments' `project`); lex: one {query, whole} per query
//         word, the query that word
//         in every boosted field kept to the project, or one whole query ([] = no lexical
//         part); notes: the project's notes (as last counted); lex_df: most hits counted per
//         word (of the whole query); rare_share: most share of the project's notes a rare
//         word is held by; terms: the query's identifiers, each the pattern of a lower-cased
//         text holding it (query_text.identifier_pattern); shares: each one's share of
//         the exact signal; codes: the patterns of those saying what the query names
//         (query_text.shares, query_text.codes); exact: Lucene query, each
//         identifier a phrase in content and title ('' = none); inside: the word index's
//         query for those inside a longer word ('' = none); by_code: the query names what
//         it asks for by a code (query_text.by_code); excluded: note kinds to
//         leave out; kinds: note kinds to keep or null; clauses: a vector per clause of a
//         question asking several things ([] for one); clause_of, clause_head: a hit per
//         clause among the best clause_of takes a place among the best clause_head (CLAUSE_OF,
//         NEAR_HEAD in kg_brain/domain/ranking.py); fetch: vector index candidates;
//         rescan: the exact scan follows a short index answer; sentences: the vector
//         channel's re-scoring by sentences ({whole, reach}, fragments/nearest_in_project:
//         the best reach notes by the cosine, of which the first pool by the mixed score are
//         the channel);
//         lex_fetch: the exact channel's full-text candidates; pool: per-channel list length; fusion: 'linear' | 'rrf'; rrf_k, w_vec, w_lex, superseded: fusion
//         constants; w_exact: weight of the exact-match signal; exact_df: most notes a rare
//         term is held by;
//         session_after, session_before: share of a found note's score the note written just
//         after / before it gets (0: off);
//         fix_lift: least share of a found mistake's score a note that FIXES it gets, times
//         the link's weight (0: off); named: the query names what it asks for;
//         history: the question asks for an earlier value; before: the value just before
//         the one it names, not the first (fragments/current_first); same_n, same_cos, same_reach,
//         same_subject, same_linked: how many hits, least mutual cosine, most a later note's
//         cosine to the query may be below, most notes of a shared entity and least mutual
//         cosine of a SUPERSEDES pair for the current value first (fragments/current_first);
//         linked_far: a linked note of the same kind is yielded to among linked_far * same_n
//         hits;
//         k: results; floor: least match (a re-scored note's, below: notes outside the
//         re-scored ones never reach it by their cosine) the best hit must reach unless a hit holds a rare
//         identifier, at least rare_words rare words of the query or has a lexical score of
//         at least lex_floor; unknown_step: what the floor gains for each content word of the
//         query no note of the project holds, unknown_most: for at most so many; lacked_step:
//         what a hit's floor gains for each content word of the query some note of the project
//         holds and it lacks.
// returns: zk_id, title, score, relevance, preview, note_kind, project, channels, fixes, session,
//          links, link_count; channels: vector, lexical, exact; fixes: the found note this one
//          was lifted from as its fix, or null; session: the found note written next to this
//          one that lifted it most, or null; links: up to 3 (zk_id, type, direction; typed, then
//          RELATES_TO, then FOLLOWS), link_count: all; best first
{{> nearest_in_project
    project: $question.project
    as: vec
    vector: $vector
    size: $pool
    sentences: $sentences
    where: n.memory_type = 'permanent' AND NOT n.note_kind IN $question.excluded
      AND ($question.kinds IS NULL OR n.note_kind IN $question.kinds) }}
// The lexical channel: BM25 with the project's own statistics (fragments/lexical_in_project).
{{> lexical_in_project
    project: $question.project
    as: lex
    notes: $notes
    size: $pool
    where: n.memory_type = 'permanent' AND NOT n.note_kind IN $question.excluded
      AND ($question.kinds IS NULL OR n.note_kind IN $question.kinds) }}
{{> exact_matches
    project: $question.project
    as: exact
    where: n.memory_type = 'permanent' AND NOT n.note_kind IN $question.excluded
      AND ($question.kinds IS NULL OR n.note_kind IN $question.kinds)
    most: $exact_df }}
// the vector score runs from 0 at the pool's lowest cosine, or $vec_span below its best if
// that is lower, to 1 at its best
// the relevance floor (below; fragments/relevance_floor): a hit of the lexical channel has a
// floor of its own (lexical: -1 when it counts as relevant whatever its cosine)
{{> relevance_floor
    lex: lex
    keep: vec, exact }}
// matched: the re-scored notes (the vector channel is the first $pool of them)
WITH vec AS matched, vec[..$pool] AS vec, lex, exact, floor
WITH matched, vec, lex, exact, floor,
     CASE WHEN vec[-1].s < vec[0].s - $vec_span THEN vec[-1].s
          ELSE vec[0].s - $vec_span END AS vlow
WITH matched, vec, lex, exact, floor, vlow, vec[0].s - vlow AS vspan
UNWIND CASE $fusion
  WHEN 'linear' THEN
    [x IN vec | {n: x.n, ch: 'vector',
                 s: $w_vec * CASE WHEN vspan > 0 THEN (x.s - vlow) / vspan ELSE 1.0 END}] +
    [x IN lex | {n: x.n, s: $w_lex * x.s / lex[0].s, ch: 'lexical',
                 lexical: x.floor}]
  ELSE
    [i IN range(0, size(vec) - 1) | {n: vec[i].n, s: $w_vec / ($rrf_k + i + 1), ch: 'vector'}] +
    [i IN range(0, size(lex) - 1) | {n: lex[i].n, s: $w_lex / ($rrf_k + i + 1), ch: 'lexical',
                                     lexical: lex[i].floor}]
  END +
  // a history question names the later value: its holder is no answer
  [x IN exact | {n: x.n, s: CASE WHEN $history THEN 0.0 ELSE $w_exact END * x.s, ch: 'exact'}]
  AS part
WITH floor, matched, part.n AS n, sum(part.s) AS fused, collect(part.ch) AS channels,
     max(part.lexical) AS lexical
WITH floor, matched, collect({n: n, channels: channels, score: fused, lexical: lexical}) AS hits
// the session: the note written just after a found one gets $session_after of its score, the
// one written just before it $session_before (a note FOLLOWS the one written before it), but
// never more than just below the note that lifts it (0.99 of its score): a look-alike written
// next to the right note does not overtake it
UNWIND hits + COLLECT {
    UNWIND CASE WHEN $session_after > 0 OR $session_before > 0 THEN hits ELSE [] END AS h
    WITH h.n AS f, h.score AS s
    MATCH (f)-[r:FOLLOWS]-(m:Note)
    WHERE m.project = $question.project AND m.memory_type = 'permanent'
      AND NOT m.note_kind IN $question.excluded
      AND ($question.kinds IS NULL OR m.note_kind IN $question.kinds)
    RETURN {n: m, channels: [], score: 0.0, via: f.zk_id, cap: s,
            near: CASE WHEN startNode(r) = m THEN $session_after ELSE $session_before END * s}
           AS near
  } AS h
WITH floor, matched, h ORDER BY coalesce(h.near, 0.0) DESC
WITH floor, matched, h.n AS n, reduce(c = [], x IN collect(h.channels) | c + x) AS channels,
     sum(h.score) AS own, sum(coalesce(h.near, 0.0)) AS lift, 0.99 * max(h.cap) AS ceiling,
     collect(CASE WHEN h.near > 0 THEN h.via END)[0] AS via, max(h.lexical) AS lexical
WITH floor, matched, n, channels, lexical,
     CASE WHEN ceiling IS NULL OR own >= ceiling THEN own
          WHEN own + lift > ceiling THEN ceiling ELSE own + lift END AS fused,
     CASE WHEN ceiling IS NOT NULL AND own < ceiling THEN via END AS session
WITH floor, matched, collect({n: n, channels: channels, fixes: null, session: session,
                    score: fused, lexical: lexical}) AS found
// a note that FIXES a found mistake scores at least $fix_lift times the mistake's score times
// the link's weight (a fix the write path inferred weighs less than one recorded as the
// resolution), plus 0.01 of its own (the fixes of one mistake keep their own order): a
// symptom question words the failure, its answer is the fix ($fix_lift 0: off). A query that
// names what it asks for ($named: an identifier and few other words) asks for the note holding
// it: the fix lacking that identifier stays below the mistake (at most 0.99 of its score).
UNWIND found + COLLECT {
    UNWIND CASE WHEN $fix_lift > 0 THEN found ELSE [] END AS h
    WITH h.n AS m, h.score AS s
    {{> fixes_of_mistake
        project: $question.project
        where: ($question.kinds IS NULL OR f.note_kind IN $question.kinds)
        lift: $fix_lift
        as: lift }}
    RETURN {n: f, channels: [], fixes: m.zk_id, session: null, lifted: lift} AS lifted
  } AS h
WITH floor, matched, h.n AS n, reduce(c = [], x IN collect(h.channels) | c + x) AS channels,
     collect(h.fixes)[0] AS fixes, collect(h.session)[0] AS session,
     coalesce(max(h.score), 0.0) AS own, max(h.lifted) AS lifted, max(h.lexical) AS lexical
WITH floor, matched, n, channels, fixes, session, lexical,
     CASE WHEN lifted IS NULL OR own >= lifted + 0.01 * own THEN own
          ELSE lifted + 0.01 * own END AS fused
WITH floor, matched, collect({n: n, channels: channels, fixes: fixes, session: session,
                    score: fused, lexical: lexical}) AS hits
// a note superseded by a live note yields to it ($superseded factor) when that note was found
// scoring at least $supersede_share of its score (0: whenever it exists); asked for history,
// the successor yields to the note it superseded. Only a link someone asserted (origin not
// 'auto'): the write path also links a note of several facts to a later note changing one of
// them, and such a link counts through the current value first alone (fragments/current_first)
UNWIND hits AS h
WITH floor, matched, hits, h, h.n AS n
WITH floor, matched, hits, h, n,
     COLLECT { MATCH (n)-[s:SUPERSEDES]-(o:Note {memory_type: 'permanent'})
               WHERE s.origin <> 'auto'
                 AND startNode(s) = CASE WHEN $history THEN n ELSE o END
               RETURN o } AS other
WITH floor, matched, n, h.channels AS channels, h.fixes AS fixes, h.session AS session,
     h.lexical AS lexical,
     h.score * CASE
       WHEN size(other) > 0 AND reduce(b = 0.0, x IN hits |
              CASE WHEN x.n IN other AND x.score > b THEN x.score ELSE b END)
            >= $supersede_share * h.score THEN $superseded
       ELSE 1.0 END AS score
ORDER BY score DESC, n.zk_id
// match: a re-scored note's score (the whole note's and its best sentence's cosine), 2 below
// its cosine for any other note: the current value first and the relevance floor read it
WITH floor, matched, collect({n: n, channels: channels, fixes: fixes, session: session,
                             score: score, lexical: lexical,
                             match: coalesce([x IN matched WHERE x.n = n | x.s][0],
                                             2.0 * vector.similarity.cosine(n.embedding, $vector)
                                             - 3.0)}) AS ranked
{{> current_first
    as: current
    hits: ranked
    head: $same_n
    same: $same_cos
    reach: $same_reach
    linked: $same_linked
    far: $linked_far
    subject: $same_subject }}
// held: the identifiers of the query that at most $exact_df of the hits hold in their content
// or title, found by the exact channel or not (the note index keeps
// `analytics.looker_scratch` as one word: its phrase query misses `looker_scratch` inside it)
WITH floor, matched, current,
     [t IN $question.terms WHERE size([h IN current WHERE toLower(h.n.content) =~ t
                                OR toLower(coalesce(h.n.title, '')) =~ t]) <= $exact_df]
     AS held
UNWIND current AS h
WITH floor, matched, held, h ORDER BY h.score DESC, h.n.zk_id
// a question asking several things ($question.clauses: a vector per clause, [] for one): after
// the first place, the hit closest to each clause among the best $clause_of takes one of the
// best $clause_head places, clause by clause; the others follow in their order, just below the
// last of them. A hit's closeness to a clause is read as the vector channel's match: its
// cosine weighing $sentences.whole and its best sentence's the rest (one note's vector is
// mostly what the note is about, one clause asks what a sentence of it states)
WITH floor, matched, held, collect(h) AS placed
CALL (placed) {
  UNWIND CASE WHEN size($question.clauses) > 0 THEN range(0, size(placed[..$clause_of]) - 1)
              ELSE [] END AS i
  WITH i, placed[i].n AS n
  WITH i, n, [(part:Sentence)-[:SENTENCE_OF]->(n) | part.embedding] AS parts
  ORDER BY i
  RETURN collect([c IN $question.clauses | CASE WHEN size(parts) = 0
           THEN vector.similarity.cosine(n.embedding, c)
           ELSE $sentences.whole * vector.similarity.cosine(n.embedding, c)
                + (1 - $sentences.whole) * reduce(b = 0.0, e IN parts |
                    CASE WHEN vector.similarity.cosine(e, c) > b
                         THEN vector.similarity.cosine(e, c) ELSE b END) END]) AS close
}
WITH floor, matched, held, placed, reduce(lead = [0], j IN range(0, size($question.clauses) - 1) |
       CASE WHEN size(lead) >= $clause_head OR size(close) = 0 THEN lead
            ELSE lead + [pick IN [reduce(b = 0, i IN range(0, size(close) - 1) |
                   CASE WHEN close[i][j] > close[b][j] THEN i ELSE b END)]
                         WHERE NOT pick IN lead] END) AS lead
WITH floor, matched, held, placed, [i IN range(0, size(placed) - 1) WHERE i IN lead] AS lead
UNWIND range(0, size(placed) - 1) AS i
WITH floor, matched, held, placed[i] AS h,
     CASE WHEN lead <> range(0, size(lead) - 1) AND NOT i IN lead
          THEN 0.99 * placed[lead[-1]].score * (1.0 - 0.001 * (i + 1) / size(placed)) END AS passed
WITH floor, matched, held, h {.*, score: CASE WHEN passed < h.score THEN passed ELSE h.score END}
     AS h
ORDER BY h.score DESC, h.n.zk_id
LIMIT $k
// relevance: a re-scored note's match (above), any other's cosine to the query, in [-1, 1]
// (vector.similarity.cosine is (1+cos)/2), comparable across queries; when no hit's match
// reaches the floor (a lexical hit its own, lower by the
// content words of the query it holds), none holds a rare identifier of the query (the exact
// channel, or one of `held`), none of the lexical channel's holds at least $rare_words rare
// words of the query (fragments/lexical_in_project) nor has a lexical score of at least
// $lex_floor, nothing relevant is stored: no rows. Nor is it when the query names what it asks
// for by a code ($question.by_code) and no hit holds one of its codes ($question.codes).
WITH floor, held, collect(h {.*, relevance: coalesce(
                                [x IN matched WHERE x.n = h.n | x.s][0],
                                2.0 * vector.similarity.cosine(h.n.embedding, $vector) - 1.0)})
     AS top
WHERE (NOT $question.by_code
       OR any(h IN top WHERE any(t IN $question.codes WHERE toLower(h.n.content) =~ t
                                 OR toLower(coalesce(h.n.title, '')) =~ t)))
  AND any(h IN top WHERE h.match >= coalesce(h.lexical, floor) OR 'exact' IN h.channels
                         OR any(t IN held WHERE toLower(h.n.content) =~ t
                                  OR toLower(coalesce(h.n.title, '')) =~ t))
UNWIND top AS h
WITH h.n AS n, h.channels AS channels, h.fixes AS fixes, h.session AS session,
     h.score AS score, h.relevance AS relevance
// the note's links read once: the first 3 shown, all counted
WITH n, channels, fixes, session, score, relevance,
     COLLECT {
       MATCH (n)-[r]-(m:Note)
       RETURN {zk_id: m.zk_id, type: type(r),
               direction: CASE WHEN startNode(r) = n THEN 'out' ELSE 'in' END} AS link
       ORDER BY CASE type(r) WHEN 'RELATES_TO' THEN 1 WHEN 'FOLLOWS' THEN 2 ELSE 0 END,
                coalesce(r.weight, 0.0) DESC, link.zk_id
     } AS links
RETURN n.zk_id AS zk_id, coalesce(n.title, '') AS title, score, relevance,
       left(n.content, 400) AS preview, n.note_kind AS note_kind, n.project AS project, channels, fixes,
       session, links[..3] AS links, size(links) AS link_count
ORDER BY score DESC, zk_id
