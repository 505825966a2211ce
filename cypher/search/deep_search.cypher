// Iterative retrieval in one statement. Hop 0: vector + full-text seeds, fused by weighted
// reciprocal rank. Hops 1..$hops: the vector index again, with a query vector computed here as
// the normalised blend of the query vector and the previous hop's top hit vectors, excluding
// notes already seen. Then neighbour expansion over the typed relationships of every hop's top
// notes. The union is ranked by each note's fused ($agg = 'sum') or best ('max') contribution;
// every result lists how it was found. Access is stamped on the returned notes.
// The index cannot filter by project: each vector search over-fetches ($fetch) and falls back to
// an exact scan of the project only when the index finds fewer than $pool of the project's notes
// (a small or rare project; the scan's index seek gets a null key otherwise, so it costs
// nothing). Notes seen in earlier hops are dropped after that test, so a later hop never turns
// a large project into a full scan just because its best candidates were already found.
// params: vector: 384 floats; text: Lucene query from word tokens ('' = none); project;
//         excluded: note kinds to leave out; hops: 1..3; fetch, lex_fetch, pool: candidate sizes;
//         blend_n: previous-hop notes blended into the next query; alpha: weight of the query;
//         expand_n: top notes per hop whose neighbours are expanded; nb_limit: neighbours per
//         note; rrf_k, w_vec, w_lex, w_graph, decay: scoring; agg: 'sum' | 'max'; k; now.
// returns: zk_id, title, score, preview, note_kind, project, found_by, links; links; best first
CALL () {
  CALL db.index.vector.queryNodes('vector_index_Note_embedding', $fetch, $vector)
  YIELD node
  WHERE node.project = $project AND node.memory_type = 'permanent' AND NOT node.note_kind IN $excluded
  RETURN collect(node)[..$pool] AS got0
}
WITH CASE WHEN size(got0) >= $pool THEN got0 ELSE COLLECT {
  MATCH (n:Note)
  WHERE n.project = CASE WHEN size(got0) < $pool THEN $project END
    AND n.memory_type = 'permanent' AND NOT n.note_kind IN $excluded AND n.embedding IS NOT NULL
  RETURN n ORDER BY vector.similarity.cosine(n.embedding, $vector) DESC LIMIT $pool
} END AS v0
CALL () {
  WITH 1 AS one WHERE $text <> ''
  CALL db.index.fulltext.queryNodes('note_fulltext', $text, {limit: $lex_fetch})
  YIELD node
  WHERE node.project = $project AND node.memory_type = 'permanent' AND NOT node.note_kind IN $excluded
  RETURN collect(node)[..$pool] AS lex0
}
CALL (v0, lex0) {
  UNWIND [i IN range(0, size(v0) - 1) | {n: v0[i], s: $w_vec / ($rrf_k + i + 1)}] +
         [i IN range(0, size(lex0) - 1) | {n: lex0[i], s: $w_lex / ($rrf_k + i + 1)}] AS part
  WITH part.n AS n, sum(part.s) AS s ORDER BY s DESC
  RETURN collect(n) AS h0
}
WITH v0, lex0, h0, v0 + [n IN lex0 WHERE NOT n IN v0] AS seen0
// hop 1: the blended query vector, then the index (or the project scan)
CALL (h0, seen0) {
  WITH seen0, [x IN h0[..$blend_n] | x.embedding] AS vs
  WITH seen0, vs, $hops >= 1 AND size(vs) > 0 AS active
  WITH seen0, active, CASE WHEN active THEN [i IN range(0, size($vector) - 1) |
         $alpha * $vector[i] + (1 - $alpha) * reduce(a = 0.0, v IN vs | a + v[i]) / size(vs)] END AS raw
  WITH seen0, active, CASE WHEN active THEN
         [x IN raw | x / sqrt(reduce(a = 0.0, y IN raw | a + y * y))] END AS q
  CALL (q, active) {
    WITH q, active WHERE active
    CALL db.index.vector.queryNodes('vector_index_Note_embedding', $fetch, q)
    YIELD node
    WHERE node.project = $project AND node.memory_type = 'permanent'
      AND NOT node.note_kind IN $excluded
    RETURN collect(node) AS inproj
  }
  WITH seen0, active, q, inproj, [x IN inproj WHERE NOT x IN seen0][..$pool] AS got
  RETURN CASE WHEN NOT active THEN [] WHEN size(inproj) >= $pool THEN got ELSE COLLECT {
    MATCH (n:Note)
    WHERE n.project = CASE WHEN active AND size(inproj) < $pool THEN $project END
      AND n.memory_type = 'permanent' AND NOT n.note_kind IN $excluded
      AND n.embedding IS NOT NULL AND NOT n IN seen0
    RETURN n ORDER BY vector.similarity.cosine(n.embedding, q) DESC LIMIT $pool
  } END AS v1
}
WITH *, seen0 + v1 AS seen1
// hop 2: the blended query vector, then the index (or the project scan)
CALL (v1, seen1) {
  WITH seen1, [x IN v1[..$blend_n] | x.embedding] AS vs
  WITH seen1, vs, $hops >= 2 AND size(vs) > 0 AS active
  WITH seen1, active, CASE WHEN active THEN [i IN range(0, size($vector) - 1) |
         $alpha * $vector[i] + (1 - $alpha) * reduce(a = 0.0, v IN vs | a + v[i]) / size(vs)] END AS raw
  WITH seen1, active, CASE WHEN active THEN
         [x IN raw | x / sqrt(reduce(a = 0.0, y IN raw | a + y * y))] END AS q
  CALL (q, active) {
    WITH q, active WHERE active
    CALL db.index.vector.queryNodes('vector_index_Note_embedding', $fetch, q)
    YIELD node
    WHERE node.project = $project AND node.memory_type = 'permanent'
      AND NOT node.note_kind IN $excluded
    RETURN collect(node) AS inproj
  }
  WITH seen1, active, q, inproj, [x IN inproj WHERE NOT x IN seen1][..$pool] AS got
  RETURN CASE WHEN NOT active THEN [] WHEN size(inproj) >= $pool THEN got ELSE COLLECT {
    MATCH (n:Note)
    WHERE n.project = CASE WHEN active AND size(inproj) < $pool THEN $project END
      AND n.memory_type = 'permanent' AND NOT n.note_kind IN $excluded
      AND n.embedding IS NOT NULL AND NOT n IN seen1
    RETURN n ORDER BY vector.similarity.cosine(n.embedding, q) DESC LIMIT $pool
  } END AS v2
}
WITH *, seen1 + v2 AS seen2
// hop 3: the blended query vector, then the index (or the project scan)
CALL (v2, seen2) {
  WITH seen2, [x IN v2[..$blend_n] | x.embedding] AS vs
  WITH seen2, vs, $hops >= 3 AND size(vs) > 0 AS active
  WITH seen2, active, CASE WHEN active THEN [i IN range(0, size($vector) - 1) |
         $alpha * $vector[i] + (1 - $alpha) * reduce(a = 0.0, v IN vs | a + v[i]) / size(vs)] END AS raw
  WITH seen2, active, CASE WHEN active THEN
         [x IN raw | x / sqrt(reduce(a = 0.0, y IN raw | a + y * y))] END AS q
  CALL (q, active) {
    WITH q, active WHERE active
    CALL db.index.vector.queryNodes('vector_index_Note_embedding', $fetch, q)
    YIELD node
    WHERE node.project = $project AND node.memory_type = 'permanent'
      AND NOT node.note_kind IN $excluded
    RETURN collect(node) AS inproj
  }
  WITH seen2, active, q, inproj, [x IN inproj WHERE NOT x IN seen2][..$pool] AS got
  RETURN CASE WHEN NOT active THEN [] WHEN size(inproj) >= $pool THEN got ELSE COLLECT {
    MATCH (n:Note)
    WHERE n.project = CASE WHEN active AND size(inproj) < $pool THEN $project END
      AND n.memory_type = 'permanent' AND NOT n.note_kind IN $excluded
      AND n.embedding IS NOT NULL AND NOT n IN seen2
    RETURN n ORDER BY vector.similarity.cosine(n.embedding, q) DESC LIMIT $pool
  } END AS v3
}
WITH *, seen2 + v3 AS seen3
WITH [i IN range(0, size(v0) - 1) | {n: v0[i], s: $w_vec / ($rrf_k + i + 1), hop: 0, ch: 'vector', via: null, rel: null}] +
     [i IN range(0, size(lex0) - 1) | {n: lex0[i], s: $w_lex / ($rrf_k + i + 1), hop: 0, ch: 'lexical', via: null, rel: null}] +
     [i IN range(0, size(v1) - 1) | {n: v1[i], s: $w_vec * $decay / ($rrf_k + i + 1), hop: 1, ch: 'vector', via: h0[0].zk_id, rel: null}] +
     [i IN range(0, size(v2) - 1) | {n: v2[i], s: $w_vec * $decay ^ 2 / ($rrf_k + i + 1), hop: 2, ch: 'vector', via: v1[0].zk_id, rel: null}] +
     [i IN range(0, size(v3) - 1) | {n: v3[i], s: $w_vec * $decay ^ 3 / ($rrf_k + i + 1), hop: 3, ch: 'vector', via: v2[0].zk_id, rel: null}] AS direct,
     [i IN range(0, size(h0) - 1) WHERE i < $expand_n | {n: h0[i], rank: i, hop: 0}] +
     [i IN range(0, size(v1) - 1) WHERE i < $expand_n | {n: v1[i], rank: i, hop: 1}] +
     [i IN range(0, size(v2) - 1) WHERE i < $expand_n | {n: v2[i], rank: i, hop: 2}] +
     [i IN range(0, size(v3) - 1) WHERE i < $expand_n | {n: v3[i], rank: i, hop: 3}] AS seeds
CALL (seeds) {
  UNWIND seeds AS seed
  WITH seed, seed.n AS sn
  CALL (sn) {
    MATCH (sn)-[r:RELATES_TO|SUPPORTS|EXTENDS|CONTRADICTS|CAUSED_BY|FIXES|SUPERSEDES|PART_OF]-(m:Note)
    WHERE m.project = $project AND m.memory_type = 'permanent' AND NOT m.note_kind IN $excluded
    RETURN m, r ORDER BY coalesce(r.weight, 0.0) DESC LIMIT $nb_limit
  }
  RETURN collect({n: m, s: $w_graph * $decay ^ (seed.hop + 1) * coalesce(r.weight, 0.5) / ($rrf_k + seed.rank + 1),
                  hop: seed.hop + 1, ch: 'graph', via: sn.zk_id, rel: type(r)}) AS expanded
}
UNWIND direct + expanded AS rec
WITH rec.n AS n, collect(rec) AS recs, sum(rec.s) AS total, max(rec.s) AS best
WITH n, recs, CASE $agg WHEN 'max' THEN best ELSE total END AS score
ORDER BY score DESC, n.zk_id
LIMIT $k
SET n.access_count = coalesce(n.access_count, 0) + 1, n.last_accessed = $now
RETURN n.zk_id AS zk_id, coalesce(n.title, '') AS title, score,
       left(n.content, 200) AS preview, n.note_kind AS note_kind, n.project AS project,
       COLLECT {
         UNWIND recs AS r
         RETURN {hop: r.hop, channel: r.ch, via: r.via, relationship: r.rel} AS how
         ORDER BY r.s DESC LIMIT 5
       } AS found_by,
       COLLECT {
         MATCH (n)-[r]-(m:Note)
         RETURN {zk_id: m.zk_id, type: type(r),
                 direction: CASE WHEN startNode(r) = n THEN 'out' ELSE 'in' END,
                 reason: coalesce(r.reason, ''), weight: coalesce(r.weight, 0.0),
                 title: coalesce(m.title, '')}
         LIMIT 10
       } AS links
ORDER BY score DESC, zk_id
