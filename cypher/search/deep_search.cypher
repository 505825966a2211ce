// Graph-aware retrieval in one statement. Hop 0 fuses four channels by normalised linear fusion:
// the vector index (its score scaled from the pool's lowest to its best), the full-text index
// (BM25 with the project's own idf, fragments/lexical_in_project, over the best score), notes
// holding a rare identifier of the query word for word ($tuning.w_exact times their
// exact-match signal, fragments/exact_matches) and entities named in the question
// ($question.entity_keys exactly, or the entity name index for $question.text at
// $tuning.ent_partial), each entity weighted by its rarity among the project's live notes (an
// IDF: the project's own name or "error" weigh next to nothing). Hop 1 ($hops >= 2): the vector
// index again with the query blended with the best notes so far. Then the graph step from the
// best $tuning.expand_n notes ($hops = 3: twice as many): bridges over entities they share with
// other notes (one step of personalised PageRank's spreading, rare entities carrying more), and
// typed links that steer: the fix of a mistake, the note that supersedes a hit, then other typed
// neighbours. The notes written just before and after a found one in its session share its
// score, up to just below it. A note that FIXES a found mistake ranks with it ($tuning.fix_lift
// times the link's weight) unless the query names an identifier the mistake holds and the fix
// lacks ($named); a note superseded by a live note through a link someone asserted yields to
// it ($tuning.superseded weight), and so does an older hit stating the same thing as a newer
// one (fragments/current_first); $history turns both round. Then the
// places: the close hits first, a hit per clause, the first hit's bridge, then unlike hits. Every result says which channels and paths found it. Read only:
// the caller stamps access on what it returns (search/stamp_access).
// Both vector hops are the index, or an exact scan of a small project
// (fragments/nearest_in_project).
// params: vector: 384 floats; question: the parts that change with the question in one map, so
//         the statement has one plan whatever the question (Neo4j keys a cached plan on each
//         parameter's type and, for a text or a list, its size class, never on what a map
//         holds): {project, text, lex, terms, shares, codes, exact, inside, by_code,
//         entity_keys, excluded,
//         clauses}; project: the project read (the fragments' `project`); text: Lucene
//         query from word tokens ('' = none), for entity names;
//         lex: one {query, whole} per query word in every boosted field, kept to the
//         project, or one whole query (fragments/lexical_in_project; [] = none); lex_df: most
//         hits counted per word; rare_share: most share of the project's notes a rare word is
//         held by; floor, lex_floor, rare_words, unknown_step, unknown_most, lacked_step:
//         the relevance floor, as search_memory's (fragments/relevance_floor; floor is
//         DeepTuning.floor past OWN_IDF_MAX notes); terms, shares, codes, exact, inside,
//         by_code: as search_memory's; entity_keys: canonical keys of the question's entities;
//         excluded: note kinds to leave out; hops: 1..3; fetch, lex_fetch, pool: candidate
//         sizes; rescan: the exact scan follows a short index answer; total: live notes of the project as last counted (a small project is counted
//         here); ent_cap: most notes an entity may have to lead anywhere; k; named: the
//         query names what it asks for (an identifier and few other words); history: the
//         question asks for an earlier value; before: the value just before the one it names,
//         not the first (fragments/current_first); near: {gap,
//         of, head, reach, clause_of, bridge_at, bridge_rarity, bridge_least, diverse_from,
//         diverse_head, diverse_of, diverse_mix, diverse_lam}, the close hits first, the first
//         hit's bridge and the unlike hits (NEAR_GAP, NEAR_OF, NEAR_HEAD, NEAR_REACH,
//         CLAUSE_OF, BRIDGE_AT, BRIDGE_RARITY, BRIDGE_LEAST, DIVERSE_FROM, DIVERSE_HEAD,
//         DIVERSE_OF, DIVERSE_MIX, DIVERSE_LAM in kg_brain/domain/ranking.py; the last two
//         DIVERSE_MANY_MIX, DIVERSE_MANY_LAM for a question asking for several things); clauses: a vector per clause of a question asking
//         several things ([] for one); tuning: a map
//         of the constants (kg_brain/domain/ranking.py DeepTuning): ent_fetch: entity-name candidates;
//         ent_n: entities followed; ent_partial: weight of an entity matched by name words only;
//         blend_n, alpha: the blended hop; expand_n: notes the graph step starts from;
//         nb_limit: typed neighbours per note; w_vec, w_lex, w_exact, w_ent, w_bridge, w_fix,
//         w_link: channel weights; exact_df: most notes a rare term is held by; decay: weight
//         of the blended hop; session_after, session_before: share of a found note's score
//         the note written just after / before it gets; superseded: factor on superseded
//         notes; supersede_share: least share of their score their successor must score;
//         vec_span: least cosine span the vector score is spread over; fix_lift: least
//         share of a found mistake's score a note that FIXES it gets, times the link's weight
//         (0: off); same_n, same_cos, same_reach, same_subject: the current value first;
//         same_linked, linked_far (apart from tuning, as search_memory's): least mutual cosine
//         of a SUPERSEDES pair for the current value first, and how many times same_n hits
//         a linked note of the same kind is yielded to among.
// returns: zk_id, title, score, relevance, preview, note_kind, project, found_by, links,
//          link_count; links: up to 3 (zk_id, type, direction; typed, then RELATES_TO, then
//          FOLLOWS), link_count: all; best first
{{> nearest_in_project
    project: $question.project
    as: vec
    vector: $vector
    size: $pool
    where: n.memory_type = 'permanent' AND NOT n.note_kind IN $question.excluded }}
WITH vec, CASE WHEN $total < 2000
               THEN COUNT { MATCH (n:Note) WHERE n.project = $question.project }
               ELSE $total END AS total
// the lexical channel: BM25 with the project's own statistics, as search_memory
{{> lexical_in_project
    project: $question.project
    as: lex
    imports: total
    notes: total
    size: $pool
    where: n.memory_type = 'permanent' AND NOT n.note_kind IN $question.excluded }}
{{> exact_matches
    project: $question.project
    as: exact
    where: n.memory_type = 'permanent' AND NOT n.note_kind IN $question.excluded
    most: $tuning.exact_df }}
CALL () {
  WITH 1 AS one WHERE $question.text <> ''
  CALL db.index.fulltext.queryNodes('entity_names', $question.text, {limit: $tuning.ent_fetch})
  YIELD node, score
  WHERE node.project = $question.project AND node.notes > 0 AND node.notes <= $ent_cap
  RETURN collect({e: node, s: score}) AS named
}
CALL (named, total) {
  UNWIND [x IN named | {e: x.e, m: $tuning.ent_partial * x.s / named[0].s}] +
         COLLECT { MATCH (e:Entity {project: $question.project})
                   WHERE e.key IN $question.entity_keys AND e.notes > 0 AND e.notes <= $ent_cap
                   RETURN {e: e, m: 1.0} } AS x
  WITH x.e AS e, max(x.m) AS m
  WITH e, m * log((total + 1.0) / (e.notes + 0.5)) / log(total + 2.0) AS w
  WHERE w > 0
  WITH e, w ORDER BY w DESC, e.key LIMIT $tuning.ent_n
  // the notes weighed before any of their properties is read, best first (equal weights by
  // id): the filter reads as many as it takes to keep $pool live notes of the project
  MATCH (e)<-[:MENTIONS]-(n:Note)
  WITH n, sum(w) AS s, collect(e)[0] AS via ORDER BY s DESC, n.zk_id
  WITH n, s, via
  WHERE n.project = $question.project AND n.memory_type = 'permanent'
    AND NOT n.note_kind IN $question.excluded
  WITH n, s, via LIMIT $pool
  RETURN collect({n: n, s: s, via: via.name}) AS ent
}
// the relevance floor (below), search_memory's (fragments/relevance_floor)
{{> relevance_floor
    lex: lex
    keep: total, vec, exact, ent }}
WITH total, floor, vec, lex, exact, ent, CASE WHEN vec[-1].s < vec[0].s - $tuning.vec_span
                                       THEN vec[-1].s ELSE vec[0].s - $tuning.vec_span END AS vlow
WITH total, floor, vec, lex, exact, ent, vlow, vec[0].s - vlow AS vspan
WITH [x IN vec | {n: x.n,
                  s: $tuning.w_vec * CASE WHEN vspan > 0 THEN (x.s - vlow) / vspan ELSE 1.0 END,
                  hop: 0, ch: 'vector', via: null, rel: null, ent: null, cos: x.s}] +
     [x IN lex | {n: x.n, s: $tuning.w_lex * x.s / lex[0].s,
                  hop: 0, ch: 'lexical', via: null, rel: null, ent: null, floor: x.floor}] +
     [x IN exact | {n: x.n, s: CASE WHEN $history THEN 0.0 ELSE $tuning.w_exact END * x.s,
                    hop: 0, ch: 'exact', via: null, rel: null, ent: null}] +  // as search_memory
     [x IN ent | {n: x.n, s: $tuning.w_ent * x.s / ent[0].s,
                  hop: 0, ch: 'entity', via: null, rel: null, ent: x.via}] AS hop0, total, floor
CALL (hop0) {
  UNWIND hop0 AS rec
  WITH rec.n AS n, sum(rec.s) AS s ORDER BY s DESC, n.zk_id
  RETURN collect({n: n, s: s}) AS base
}
// hop 1: the query blended with the best notes so far, then the index (or the project scan)
CALL (base) {
  WITH base, [x IN base[..$tuning.blend_n] | x.n.embedding] AS vs
  WITH base, CASE WHEN $hops >= 2 AND size(vs) > 0 THEN [i IN range(0, size($vector) - 1) |
         $tuning.alpha * $vector[i]
         + (1 - $tuning.alpha) * reduce(a = 0.0, v IN vs | a + v[i]) / size(vs)]
       END AS raw
  WITH base, raw, sqrt(reduce(a = 0.0, y IN raw | a + y * y)) AS norm
  WITH base, [x IN raw | x / norm] AS q, [x IN base | x.n] AS seen
  {{> nearest_in_project
      project: $question.project
      as: got
      imports: q, seen
      vector: q
      size: $pool
      where: n.memory_type = 'permanent' AND NOT n.note_kind IN $question.excluded
      except: n IN seen }}
  RETURN [i IN range(0, size(got) - 1) |
          {n: got[i].n, s: $tuning.w_vec * $tuning.decay * (size(got) - i) / size(got), hop: 1,
           ch: 'vector', via: base[0].n.zk_id, rel: null, ent: null}] AS hop1
}
// the graph step: entity bridges and typed links from the best notes so far
WITH hop0, hop1, base, base[0].s AS top, total, floor
CALL (base, top, total) {
  UNWIND base[..CASE WHEN $hops >= 3 THEN 2 * $tuning.expand_n ELSE $tuning.expand_n END] AS seed
  WITH seed.n AS sn, seed.s / top AS pull, total
  // bridged notes as the entity channel's: weighed first, then read until $tuning.nb_limit
  // live notes of the project are kept, best first (equal weights by id); the notes of one
  // weight are taken together, so only the weights it takes to keep them have their notes read
  CALL (sn, pull, total) {
    MATCH (sn)-[:MENTIONS]->(e:Entity)
    WHERE e.notes >= 2 AND e.notes <= $ent_cap
    WITH e, pull * log((total + 1.0) / (e.notes + 0.5)) / log(total + 2.0) AS w
    WHERE w > 0
    MATCH (e)<-[:MENTIONS]-(m:Note)
    WHERE m <> sn
    WITH m, sum(w) AS bw, collect(e)[0] AS via
    WITH bw, collect({m: m, via: via}) AS tied ORDER BY bw DESC
    WITH collect({bw: bw, tied: tied}) AS weights
    UNWIND reduce(kept = [], g IN weights |
             CASE WHEN size(kept) >= $tuning.nb_limit THEN kept
                  ELSE kept + [x IN g.tied
                               WHERE x.m.project = $question.project
                                 AND x.m.memory_type = 'permanent'
                                 AND NOT x.m.note_kind IN $question.excluded
                               | {m: x.m, bw: g.bw, via: x.via}] END) AS x
    WITH x.m AS m, x.bw AS bw, x.via AS via ORDER BY bw DESC, m.zk_id LIMIT $tuning.nb_limit
    RETURN collect({n: m, s: $tuning.w_bridge * bw, hop: 1, ch: 'bridge', via: sn.zk_id,
                    rel: 'MENTIONS', ent: via.name}) AS bridged
  }
  CALL (sn, pull) {
    MATCH (sn)-[r:RELATES_TO|SUPPORTS|EXTENDS|CONTRADICTS|CAUSED_BY|FIXES|SUPERSEDES|PART_OF]-(m:Note)
    WHERE m.project = $question.project AND m.memory_type = 'permanent'
      AND NOT m.note_kind IN $question.excluded
    WITH m, r, CASE
        WHEN type(r) = 'FIXES' AND startNode(r) = m THEN $tuning.w_fix
        WHEN type(r) = 'SUPERSEDES' AND startNode(r) = m THEN $tuning.w_fix
        WHEN type(r) = 'RELATES_TO' THEN $tuning.w_link * 0.5
        ELSE $tuning.w_link END * coalesce(r.weight, 0.5) * pull AS w
    ORDER BY w DESC LIMIT $tuning.nb_limit
    RETURN collect({n: m, s: w, hop: 1, ch: 'link', via: sn.zk_id, rel: type(r), ent: null})
           AS linked
  }
  RETURN collect(bridged + linked) AS steps
}
UNWIND hop0 + hop1 + reduce(all = [], step IN steps | all + step) AS rec
WITH total, floor, rec.n AS n, collect(rec) AS recs, sum(rec.s) AS fused
WITH total, floor, collect({n: n, recs: recs, s: fused}) AS hits
// the session: the note written just after a found one gets $tuning.session_after of its score,
// the one written just before it $tuning.session_before (a note FOLLOWS the one before it), but
// never more than just below the note that lifts it (0.99 of its score)
UNWIND hits + COLLECT {
    UNWIND CASE WHEN $tuning.session_after > 0 OR $tuning.session_before > 0 THEN hits
                ELSE [] END AS h
    WITH h.n AS f, h.s AS top
    MATCH (f)-[r:FOLLOWS]-(m:Note)
    WHERE m.project = $question.project AND m.memory_type = 'permanent'
      AND NOT m.note_kind IN $question.excluded
    WITH m, f, top, CASE WHEN startNode(r) = m THEN $tuning.session_after
                         ELSE $tuning.session_before END * top AS s
    WHERE s > 0
    RETURN {n: m, s: 0.0, lift: s, cap: top,
            recs: [{n: m, s: s, hop: 1, ch: 'session', via: f.zk_id, rel: 'FOLLOWS',
                    ent: null}]} AS near
  } AS h
WITH total, floor, h.n AS n, reduce(r = [], x IN collect(h.recs) | r + x) AS recs, sum(h.s) AS own,
     sum(coalesce(h.lift, 0.0)) AS lift, 0.99 * max(h.cap) AS ceiling
WITH total, floor, n, CASE WHEN ceiling IS NULL OR own >= ceiling THEN own
             WHEN own + lift > ceiling THEN ceiling ELSE own + lift END AS fused,
     CASE WHEN ceiling IS NOT NULL AND own >= ceiling THEN [x IN recs WHERE x.ch <> 'session']
          ELSE recs END AS recs
WITH total, floor, collect({n: n, recs: recs, s: fused}) AS found
// a note that FIXES a found mistake scores at least $tuning.fix_lift times the mistake's score
// times the link's weight, plus 0.01 of its own; a query that names what it asks for ($named)
// keeps the mistake holding its identifier above a fix lacking it (as search_memory)
UNWIND found + COLLECT {
    UNWIND CASE WHEN $tuning.fix_lift > 0 THEN found ELSE [] END AS h
    WITH h.n AS m, h.s AS s
    {{> fixes_of_mistake
        project: $question.project
        where: true
        lift: $tuning.fix_lift
        as: s }}
    RETURN {n: f, s: 0.0, lifted: s, recs: [{n: f, s: s, hop: 1, ch: 'link', via: m.zk_id,
                                            rel: 'FIXES', ent: null}]} AS lifted
  } AS h
WITH total, floor, h.n AS n, reduce(r = [], x IN collect(h.recs) | r + x) AS recs,
     coalesce(max(h.s), 0.0) AS own, max(h.lifted) AS lifted
WITH total, floor, n, recs, CASE WHEN lifted IS NULL OR own >= lifted + 0.01 * own THEN own
                   ELSE lifted + 0.01 * own END AS fused
WITH total, floor, collect({n: n, recs: recs, s: fused}) AS hits
// a note superseded by a live note through a link someone asserted (not the write path's:
// origin 'auto') yields to it when that note was found scoring at least
// $tuning.supersede_share of its score (as search_memory); asked for history, the successor
// yields to the note it superseded
UNWIND hits AS h
WITH total, floor, hits, h, h.n AS n
WITH total, floor, hits, h, n, CASE WHEN $history
       THEN COLLECT { MATCH (n)-[s:SUPERSEDES]->(o:Note {memory_type: 'permanent'})
                      WHERE s.origin <> 'auto' RETURN o.zk_id }
       ELSE COLLECT { MATCH (n)<-[s:SUPERSEDES]-(o:Note {memory_type: 'permanent'})
                      WHERE s.origin <> 'auto' RETURN o.zk_id } END AS other
WITH total, floor, n, h.recs AS recs, h.s * CASE
       WHEN size(other) > 0 AND reduce(b = 0.0, x IN hits |
              CASE WHEN x.n.zk_id IN other AND x.s > b THEN x.s ELSE b END)
            >= $tuning.supersede_share * h.s THEN $tuning.superseded
       ELSE 1.0 END AS score
ORDER BY score DESC, n.zk_id
WITH total, floor, collect({n: n, recs: recs, score: score}) AS ranked
{{> current_first
    as: current
    hits: ranked
    head: $tuning.same_n
    same: $tuning.same_cos
    reach: $tuning.same_reach
    linked: $same_linked
    far: $linked_far
    subject: $tuning.same_subject }}
UNWIND current AS h
WITH total, floor, h ORDER BY h.score DESC, h.n.zk_id
// relevance: the note's cosine to the query in [-1, 1] (vector.similarity.cosine is (1+cos)/2),
// comparable across queries; the vector channel's own when it found the note (the embedding is
// read once)
WITH total, floor, collect(h {.*, relevance: CASE WHEN any(r IN h.recs WHERE r.cos IS NOT NULL)
                    THEN [r IN h.recs WHERE r.cos IS NOT NULL | r.cos][0]
                    ELSE 2.0 * coalesce(vector.similarity.cosine(h.n.embedding, $vector),
                                        0.0) - 1.0 END}) AS ranked
// close to the query first: the best $near.head places go to the first hits among the best
// $near.of and the $near.reach candidates closest to the query (a note closest in meaning that
// shares few of the query's words can score below a pool of notes that share them: the lexical
// channel weighs more than the vector's) whose cosine is at most $near.gap below the closest
// of those, or that hold a rare identifier of the query, or that fix or supersede the closest
// (what a question wording a failure or a stale value asks for, in other words); a hit passed
// over (a typed link, a bridge or a session neighbour lifted it, or words it shares with the
// query, while it is about something else) scores just below the last of them, the hits passed
// over in the order of their closeness to the query (a thousandth of that score less per unit
// of cosine below 1)
WITH total, floor, ranked, COLLECT { UNWIND range(0, size(ranked) - 1) AS i
                       RETURN i ORDER BY ranked[i].relevance DESC, i LIMIT $near.reach } AS nearest
WITH total, floor, ranked, [i IN range(0, size(ranked) - 1) WHERE i < $near.of OR i IN nearest] AS seen
WITH total, floor, ranked, seen, reduce(b = -1.0, i IN seen |
                          CASE WHEN ranked[i].relevance > b THEN ranked[i].relevance ELSE b END)
                   AS closest
WITH total, floor, ranked, [i IN seen
              WHERE ranked[i].relevance >= closest - $near.gap
                    OR any(r IN ranked[i].recs WHERE r.ch = 'exact')
                    OR EXISTS { MATCH (f)-[:FIXES|SUPERSEDES]->(m)
                                WHERE f = ranked[i].n
                                  AND m IN [j IN seen WHERE ranked[j].relevance = closest
                                            | ranked[j].n] }
             ][..$near.head] AS lead
UNWIND range(0, size(ranked) - 1) AS i
WITH total, floor, ranked[i] AS h, CASE WHEN size(lead) > 0 AND i < lead[-1] AND NOT i IN lead
                          AND ranked[i].score > 0.99 * ranked[lead[-1]].score
                          THEN 0.99 * ranked[lead[-1]].score
                               * (1.0 - 0.001 * (1.0 - ranked[i].relevance)) END AS passed
WITH total, floor, h {.*, score: coalesce(passed, h.score)} AS h
ORDER BY h.score DESC, h.n.zk_id
// a question asking several things ($question.clauses: a vector per clause, [] for one): after
// the first place, the closest hit to each clause (its cosine to the clause) among the best
// $near.clause_of takes one of the best $near.head places, clause by clause; the others follow
// in their order, just below the last of them
WITH total, floor, collect(h) AS placed
WITH total, floor, placed, reduce(lead = [0], c IN $question.clauses |
       CASE WHEN size(lead) >= $near.head THEN lead ELSE lead + [pick IN [reduce(b = 0,
         i IN range(0, size(placed[..$near.clause_of]) - 1) |
         CASE WHEN vector.similarity.cosine(placed[i].n.embedding, c)
                   > vector.similarity.cosine(placed[b].n.embedding, c) THEN i ELSE b END)]
         WHERE NOT pick IN lead] END) AS lead
WITH total, floor, placed, [i IN range(0, size(placed) - 1) WHERE i IN lead] AS lead
UNWIND range(0, size(placed) - 1) AS i
WITH total, floor, placed[i] AS h, CASE WHEN lead <> range(0, size(lead) - 1) AND NOT i IN lead
                          THEN 0.99 * placed[lead[-1]].score
                               * (1.0 - 0.001 * (i + 1) / size(placed)) END AS passed
WITH total, floor, h {.*, score: CASE WHEN passed < h.score THEN passed ELSE h.score END} AS h
ORDER BY h.score DESC, h.n.zk_id
// the first hit's bridge: of the notes sharing entities with the first hit that at least 2 and
// at most $ent_cap notes mention, the one whose shared entities weigh most, each by its rarity
// among the project's notes (as the graph step's) to the power $near.bridge_rarity, takes
// place $near.bridge_at when it ranks below it and they weigh at least $near.bridge_least
// (several rare things in common, not one); ties go to the closer to the query. A question
// asking for several notes finds the one nearest its words first; another it needs names the
// same rare things (a host, a variable, a job) in other words.
WITH total, floor, collect(h) AS placed
WITH floor, placed, COLLECT {
    WITH placed[0].n AS lead, [x IN placed[..$near.bridge_at - 1] | x.n] AS above
    WHERE lead IS NOT NULL AND $near.bridge_at > 1
    // weighed before any of the notes' properties is read
    MATCH (lead)-[:MENTIONS]->(e:Entity)<-[:MENTIONS]-(m:Note)
    WHERE e.notes >= 2 AND e.notes <= $ent_cap AND NOT m IN above
    WITH lead, m, collect(e)[0] AS via,
         sum((log((total + 1.0) / (e.notes + 0.5)) / log(total + 2.0)) ^ $near.bridge_rarity)
         AS w
    WHERE w >= $near.bridge_least AND m.project = $question.project AND m.memory_type = 'permanent'
      AND NOT m.note_kind IN $question.excluded
    WITH lead, m, via, w, vector.similarity.cosine(m.embedding, $vector) AS cos
    ORDER BY w DESC, cos DESC, m.zk_id LIMIT 1
    RETURN {n: m, cos: 2.0 * cos - 1.0, via: lead.zk_id, ent: via.name} AS b
  } AS bridge
WITH floor, placed, bridge[0] AS b, [x IN placed WHERE NOT x.n IN [y IN bridge | y.n]] AS rest
// it scores just below the hit above it; the hits it passes over score just below it, in their
// order
WITH floor, placed, b, rest, [x IN placed WHERE x.n = b.n][0] AS was,
     0.999 * rest[size(rest[..$near.bridge_at - 1]) - 1].score AS s
WITH floor, b, s, CASE WHEN b IS NULL THEN placed
                ELSE rest[..$near.bridge_at - 1]
                     + [{n: b.n, score: s, relevance: coalesce(was.relevance, b.cos),
                         recs: coalesce(was.recs, [])
                               + [{n: b.n, s: s - coalesce(was.score, 0.0), hop: 1,
                                   ch: 'bridge', via: b.via, rel: 'MENTIONS', ent: b.ent}]}]
                     + rest[$near.bridge_at - 1..] END AS ranked
UNWIND range(0, size(ranked) - 1) AS i
WITH floor, ranked[i] AS h, CASE WHEN b IS NOT NULL AND i >= $near.bridge_at
                          THEN 0.99 * s * (1.0 - 0.001 * i / size(ranked)) END AS cap
WITH floor, h {.*, score: CASE WHEN cap < h.score THEN cap ELSE h.score END} AS h
ORDER BY h.score DESC, h.n.zk_id
// unlike hits: the best $near.diverse_from places stay, then each of the places up to
// $near.diverse_head goes in turn to the hit among the best $near.diverse_of with the highest
// relevance, its share of the first hit's score and its cosine to the query (in [-1, 1])
// weighing 1 - $near.diverse_mix and $near.diverse_mix, less $near.diverse_lam times its
// highest cosine to the hits placed before (the notes an answer spread over several needs are
// not crowded out by look-alikes of one); the chosen keep their order, the others follow in
// theirs, just below the last of them. Whether anything relevant is stored (below) is read
// from the best $k before this step.
WITH floor, collect(h) AS placed
WITH placed, any(h IN placed[..$k] WHERE h.relevance >= coalesce(
                         [r IN h.recs WHERE r.ch = 'lexical' | r.floor][0], floor)
                     OR any(r IN h.recs WHERE r.ch = 'exact'))
             AND (NOT $question.by_code
                  OR any(h IN placed[..$k] WHERE any(t IN $question.codes
                           WHERE toLower(h.n.content) =~ t
                              OR toLower(coalesce(h.n.title, '')) =~ t))) AS known,
     CASE WHEN $near.diverse_head > $near.diverse_from AND placed[0].score > 0
          THEN placed[..$near.diverse_of] ELSE [] END AS pool
WITH placed, known, pool, [x IN pool | x.n.embedding] AS vs
WITH placed, known, [i IN range(0, size(pool) - 1) | [j IN range(0, size(pool) - 1) |
                       2.0 * vector.similarity.cosine(vs[i], vs[j]) - 1.0]] AS sim,
     [x IN pool | (1.0 - $near.diverse_mix) * x.score / pool[0].score
                  + $near.diverse_mix * x.relevance] AS rel
WITH placed, known, reduce(lead = range(0, $near.diverse_from - 1),
                           step IN range($near.diverse_from, $near.diverse_head - 1) |
       CASE WHEN size(lead) >= size(rel) THEN lead
            ELSE lead + [reduce(b = null,
              x IN [i IN range(0, size(rel) - 1) WHERE NOT i IN lead |
                    {i: i, v: rel[i] - $near.diverse_lam * reduce(m = -1.0, j IN lead |
                                CASE WHEN sim[i][j] > m THEN sim[i][j] ELSE m END)}] |
              CASE WHEN b IS NULL OR x.v > b.v THEN x ELSE b END).i] END) AS lead
WITH placed, known, [i IN range(0, size(placed) - 1) WHERE i IN lead] AS lead
UNWIND range(0, size(placed) - 1) AS i
WITH known, placed[i] AS h, CASE WHEN lead <> range(0, size(lead) - 1) AND NOT i IN lead
                                 THEN 0.99 * placed[lead[-1]].score
                                      * (1.0 - 0.001 * (i + 1) / size(placed)) END AS passed
WITH known, h {.*, score: CASE WHEN passed < h.score THEN passed ELSE h.score END} AS h
ORDER BY h.score DESC, h.n.zk_id
LIMIT $k
// when no hit reaches the floor (a lexical hit its own, fragments/relevance_floor) and none
// holds a rare identifier of the query (the exact channel), or the query names what it asks
// for by a code ($question.by_code) and no hit holds one of its codes, nothing relevant
// is stored: no rows.
WITH known, collect(h) AS top
WHERE known
UNWIND top AS h
WITH h.n AS n, h.recs AS recs, h.score AS score, h.relevance AS relevance
RETURN n.zk_id AS zk_id, coalesce(n.title, '') AS title, score, relevance,
       left(n.content, 400) AS preview, n.note_kind AS note_kind, n.project AS project,
       COLLECT {
         UNWIND recs AS r
         RETURN {hop: r.hop, channel: r.ch, via: r.via, relationship: r.rel, entity: r.ent}
                AS how
         ORDER BY r.s DESC LIMIT 5
       } AS found_by,
       COLLECT {
         MATCH (n)-[r]-(m:Note)
         RETURN {zk_id: m.zk_id, type: type(r),
                 direction: CASE WHEN startNode(r) = n THEN 'out' ELSE 'in' END} AS link
         ORDER BY CASE type(r) WHEN 'RELATES_TO' THEN 1 WHEN 'FOLLOWS' THEN 2 ELSE 0 END,
                  coalesce(r.weight, 0.0) DESC, link.zk_id
         LIMIT 3
       } AS links,
       COUNT { (n)--(:Note) } AS link_count
ORDER BY score DESC, zk_id
